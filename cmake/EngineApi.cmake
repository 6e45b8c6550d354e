# Which spelling of each llama.cpp API the engine's headers have: one table of
# API variants, checked at configure time against MOESWEEP_LLAMA_DIR's own
# llama.h / ggml headers (compile-only probes, nothing is linked or run), so one
# worker source builds against every release from b3889 (October 2024) to
# v0.5.0 (September 2026). The worker calls one interface
# (src/engine/worker/llama_cpp/llama_api.hpp); each feature's variants are
# the small functions of llama_api.cpp.
#
# A row: moesweep_engine_api(FEATURE VARIANT [INCLUDE header...] CODE statements).
# Rows of one feature are tried in the order written (newest spelling first);
# the first whose CODE compiles is the feature's variant. A feature whose last
# row is the variant `none` with empty CODE is optional (the worker says what
# it lacks when asked for it); for the others, no row compiling is an error
# that names the feature and every spelling tried.
#
# Adding the next API change: one row here (its new spelling, above the old
# ones) and one #if branch in llama_api.cpp's function for that feature.
# tests/engine_api/ checks the table against stub headers of each era.
#
# Output: ${MOESWEEP_ENGINE_API_DIR}/engine_api_variants.h with
# MOESWEEP_API_<FEATURE>_<VARIANT> defined for each chosen variant and
# MOESWEEP_ENGINE_API ("feature=variant,..." for the worker's hello); the
# chosen variants also in the MOESWEEP_ENGINE_API_CHOSEN list.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

set(MOESWEEP_ENGINE_API_DIR "${CMAKE_BINARY_DIR}/generated" CACHE INTERNAL "")
set(_api_features "")

function(moesweep_engine_api feature variant)
  cmake_parse_arguments(PARSE_ARGV 2 row "" "" "INCLUDE;CODE")
  set_property(GLOBAL APPEND PROPERTY MOESWEEP_API_ROWS_${feature} "${variant}")
  set_property(GLOBAL PROPERTY MOESWEEP_API_CODE_${feature}_${variant} "${row_CODE}")
  set_property(GLOBAL PROPERTY MOESWEEP_API_INCLUDE_${feature}_${variant} "${row_INCLUDE}")
  get_property(features GLOBAL PROPERTY MOESWEEP_API_FEATURES)
  if(NOT feature IN_LIST features)
    set_property(GLOBAL APPEND PROPERTY MOESWEEP_API_FEATURES "${feature}")
  endif()
endfunction()

# --- the table -------------------------------------------------------------------------------
# Model loading and context creation were renamed in b4435 (January 2025); the
# old names stayed, deprecated, until b6xxx.
moesweep_engine_api(MODEL_LOAD model_load_from_file
  CODE "llama_model * m = llama_model_load_from_file(\"x\", llama_model_default_params()); llama_model_free(m);")
moesweep_engine_api(MODEL_LOAD load_model_from_file
  CODE "llama_model * m = llama_load_model_from_file(\"x\", llama_model_default_params()); llama_free_model(m);")
moesweep_engine_api(CONTEXT_INIT init_from_model
  CODE "llama_context * c = llama_init_from_model(nullptr, llama_context_default_params()); (void)c;")
moesweep_engine_api(CONTEXT_INIT new_context_with_model
  CODE "llama_context * c = llama_new_context_with_model(nullptr, llama_context_default_params()); (void)c;")
# The KV cache: llama_kv_cache_* (to b4980), llama_kv_self_* (b4980-b6133), the memory API (b5640 on).
# Before the memory API an empty sequence's largest position read 0, as one token's does: the
# count of used cells tells them apart.
moesweep_engine_api(KV_CACHE memory
  CODE "llama_context * c = nullptr; bool ok = llama_memory_seq_rm(llama_get_memory(c), 0, 1, -1); llama_pos p = llama_memory_seq_pos_max(llama_get_memory(c), 0); (void)ok; (void)p;")
moesweep_engine_api(KV_CACHE kv_self
  CODE "llama_context * c = nullptr; bool ok = llama_kv_self_seq_rm(c, 0, 1, -1); llama_pos p = llama_kv_self_seq_pos_max(c, 0) + llama_kv_self_used_cells(c); (void)ok; (void)p;")
moesweep_engine_api(KV_CACHE kv_cache
  CODE "llama_context * c = nullptr; bool ok = llama_kv_cache_seq_rm(c, 0, 1, -1); llama_pos p = llama_kv_cache_seq_pos_max(c, 0) + llama_get_kv_cache_used_cells(c); (void)ok; (void)p;")
# Model facts: llama_vocab_* and llama_model_n_* from b4529 on.
moesweep_engine_api(MODEL_FACTS vocab_api
  CODE "const llama_model * m = nullptr; int v = llama_vocab_n_tokens(llama_model_get_vocab(m)) + llama_model_n_layer(m) + llama_model_n_ctx_train(m); (void)v;")
moesweep_engine_api(MODEL_FACTS model_api
  CODE "const llama_model * m = nullptr; int v = llama_n_vocab(m) + llama_n_layer(m) + llama_n_ctx_train(m); (void)v;")
# Flash attention: a bool to b6301, an enum with auto (-1) from b6431.
moesweep_engine_api(FLASH_ATTN type_enum
  CODE "llama_context_params p = llama_context_default_params(); p.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO; const char * n = llama_flash_attn_type_name(p.flash_attn_type); (void)n;")
moesweep_engine_api(FLASH_ATTN bool_flag
  CODE "llama_context_params p = llama_context_default_params(); p.flash_attn = true;")
# How weights are read: load_mode (b10361 on: none, mmap, mlock, mmap+mlock, dio) or two bools.
moesweep_engine_api(LOAD_MODE load_mode
  CODE "llama_model_params p = llama_model_default_params(); p.load_mode = llama_load_mode_from_str(\"auto\");")
moesweep_engine_api(LOAD_MODE mmap_mlock
  CODE "llama_model_params p = llama_model_default_params(); p.use_mmap = true; p.use_mlock = false;")
# -ot / --n-cpu-moe: tensor buffer-type overrides (b5590 on).
moesweep_engine_api(TENSOR_OVERRIDES buft_overrides
  CODE "llama_model_params p = llama_model_default_params(); static llama_model_tensor_buft_override o[1] = {{nullptr, nullptr}}; p.tensor_buft_overrides = o;")
moesweep_engine_api(TENSOR_OVERRIDES none CODE "")
# The quantizer's dequantization slab (v0.4.0 on); before, a whole tensor at once.
moesweep_engine_api(QUANTIZE_BUFFER max_buf_size
  CODE "llama_model_quantize_params p = llama_model_quantize_default_params(); p.max_buf_size = 1;")
moesweep_engine_api(QUANTIZE_BUFFER none CODE "")
# The CPU backend's own header (b4234 on); before, threadpools were declared in ggml.h.
moesweep_engine_api(CPU_HEADER ggml_cpu_h INCLUDE ggml-cpu.h
  CODE "ggml_threadpool_params p = ggml_threadpool_params_default(1); (void)p;")
moesweep_engine_api(CPU_HEADER ggml_h
  CODE "ggml_threadpool_params p = ggml_threadpool_params_default(1); (void)p;")
# Backends as loadable modules in a folder (b4435 on); before, registered at link time.
moesweep_engine_api(BACKEND_LOADING load_all_from_path
  CODE "ggml_backend_load_all_from_path(\"x\"); ggml_backend_unload(ggml_backend_load(\"x\"));")
moesweep_engine_api(BACKEND_LOADING none CODE "")
# What a CPU backend was compiled for (b4234 on).
moesweep_engine_api(CPU_FEATURES get_features
  CODE "ggml_backend_get_features_t f = nullptr; const ggml_backend_feature * x = f ? f(nullptr) : nullptr; (void)x;")
moesweep_engine_api(CPU_FEATURES cpu_has  # before: ggml.h's ggml_cpu_has_*
  CODE "int x = ggml_cpu_has_avx2() + ggml_cpu_has_avx512(); (void)x;")
moesweep_engine_api(CPU_FEATURES none CODE "")
# --- end of the table ------------------------------------------------------------------------

# Chooses every feature's variant against the headers in `include_dirs`;
# writes the header into `out_dir` and sets `out_var` to the chosen
# "FEATURE=variant" list. Results are cached per header content (a changed
# llama.h is probed again).
function(moesweep_choose_engine_api include_dirs out_dir out_var)
  set(digest "")
  foreach(dir ${include_dirs})
    foreach(h llama.h ggml.h ggml-backend.h ggml-cpu.h)
      if(EXISTS "${dir}/${h}")
        file(SHA256 "${dir}/${h}" sum)
        string(APPEND digest "${sum}")
      endif()
    endforeach()
  endforeach()
  string(SHA256 digest "${digest}|${CMAKE_CXX_COMPILER}")
  string(SUBSTRING "${digest}" 0 12 digest)
  get_property(features GLOBAL PROPERTY MOESWEEP_API_FEATURES)
  set(chosen "")
  set(defines "")
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${include_dirs})
  set(CMAKE_REQUIRED_QUIET ON)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)  # compile only: nothing to link against yet
  foreach(feature ${features})
    get_property(variants GLOBAL PROPERTY MOESWEEP_API_ROWS_${feature})
    set(pick "")
    foreach(variant ${variants})
      get_property(code GLOBAL PROPERTY MOESWEEP_API_CODE_${feature}_${variant})
      string(REPLACE "\\;" ";" code "${code}")  # the row's statements, not a CMake list
      get_property(includes GLOBAL PROPERTY MOESWEEP_API_INCLUDE_${feature}_${variant})
      set(src "#include \"llama.h\"\n#include \"ggml.h\"\n#include \"ggml-backend.h\"\n")
      foreach(h ${includes})
        string(APPEND src "#include \"${h}\"\n")
      endforeach()
      string(APPEND src "void moesweep_probe() { ${code} }\n")
      string(SHA256 probe "${digest}|${src}")  # a changed row or header is probed again
      string(SUBSTRING "${probe}" 0 12 probe)
      set(result "MOESWEEP_API_PROBE_${feature}_${variant}_${probe}")
      check_cxx_source_compiles("${src}" ${result})
      if(${result})
        set(pick ${variant})
        break()
      endif()
    endforeach()
    if(NOT pick)
      string(REPLACE ";" ", " tried "${variants}")
      message(FATAL_ERROR "moesweep: the engine's headers in ${include_dirs} have none of the "
                          "known spellings of ${feature} (tried: ${tried}). This llama.cpp is "
                          "newer or older than the worker's API table (cmake/EngineApi.cmake): add "
                          "a row for its spelling.")
    endif()
    list(APPEND chosen "${feature}=${pick}")
    string(APPEND defines "#define MOESWEEP_API_${feature}_${pick} 1\n")
  endforeach()
  cmake_pop_check_state()
  string(REPLACE ";" "," summary "${chosen}")
  string(TOLOWER "${summary}" summary)
  file(CONFIGURE OUTPUT "${out_dir}/engine_api_variants.h" CONTENT
"// Generated by cmake/EngineApi.cmake: the llama.cpp API variants of the engine's headers.
// Do not edit; reconfigure instead.
#pragma once
${defines}#define MOESWEEP_ENGINE_API \"${summary}\"
" @ONLY)
  set(${out_var} "${chosen}" PARENT_SCOPE)
endfunction()

# --- what GGUF files the engine reads ------------------------------------------------------
# Not an API: which architectures and tensor layouts the engine's loader knows, read from its
# tensor and architecture name tables (src/llama-arch.cpp from b4400, src/llama.cpp before), so
# that a twin is written in a layout every engine of a sweep loads (src/model/twin_layout.hpp).
# A row: moesweep_engine_reads(FEATURE "regex matched by a line of those tables"
# [src/other-file.cpp]: a loader fact read elsewhere, e.g. in its hyperparameter reader).
function(moesweep_engine_reads feature regex)
  set_property(GLOBAL APPEND PROPERTY MOESWEEP_READS_FEATURES "${feature}")
  set_property(GLOBAL PROPERTY MOESWEEP_READS_REGEX_${feature} "${regex}")
  set_property(GLOBAL PROPERTY MOESWEEP_READS_FILE_${feature} "${ARGN}")
endfunction()
moesweep_engine_reads(deepseek2 "\"deepseek2\"")
# DeepSeek-V3's sigmoid router with its score-correction bias (b4435 on; before, V2's softmax).
moesweep_engine_reads(deepseek2.v3_router "exp_probs_b")
# MLA's kv_b split into attn_k_b and attn_v_b (llama.cpp PR #12801, b5590 on); older files
# (attn_kv_b) still load in newer engines.
moesweep_engine_reads(deepseek2.split_mla "attn_k_b")
moesweep_engine_reads(qwen3moe "\"qwen3moe\"")
moesweep_engine_reads(llama4 "\"llama4\"")
# A requirement, not a capability: deepseek2's loader demands rope.scaling.yarn_log_multiplier
# (get_key without `false`: to b5640; optional from b6122). The legacy layout always writes it.
moesweep_engine_reads(deepseek2.requires_yarn_log_mul
                      "YARN_LOG_MUL, hparams.rope_yarn_log_mul\\)" src/llama-model.cpp)

# Sets `out_var` to the comma-separated features the engine tree `dir` reads.
function(moesweep_engine_reads_of dir out_var)
  set(table "${dir}/src/llama-arch.cpp")
  if(NOT EXISTS "${table}")
    set(table "${dir}/src/llama.cpp")
  endif()
  set(found "")
  get_property(features GLOBAL PROPERTY MOESWEEP_READS_FEATURES)
  if(EXISTS "${table}")
    foreach(feature ${features})
      get_property(regex GLOBAL PROPERTY MOESWEEP_READS_REGEX_${feature})
      get_property(file GLOBAL PROPERTY MOESWEEP_READS_FILE_${feature})
      set(where "${table}")
      if(file AND EXISTS "${dir}/${file}")
        set(where "${dir}/${file}")
      endif()
      file(STRINGS "${where}" hits REGEX "${regex}" LIMIT_COUNT 1)
      if(hits)
        list(APPEND found "${feature}")
      endif()
    endforeach()
  endif()
  string(REPLACE ";" "," found "${found}")
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Sets `out_var` to the most routed experts per layer the engine's loader accepts
# (LLAMA_MAX_EXPERTS: 160 to b4291, 256 to b5640, 384 from b6122, 512, 1024 from v0.4.0);
# 0 when the source does not say.
function(moesweep_engine_max_experts_of dir out_var)
  set(max 0)
  foreach(file src/llama-hparams.h src/llama.cpp)
    if(EXISTS "${dir}/${file}")
      file(STRINGS "${dir}/${file}" line REGEX "^#define LLAMA_MAX_EXPERTS +[0-9]+" LIMIT_COUNT 1)
      if(line MATCHES "LLAMA_MAX_EXPERTS +([0-9]+)")
        set(max ${CMAKE_MATCH_1})
        break()
      endif()
    endif()
  endforeach()
  set(${out_var} ${max} PARENT_SCOPE)
endfunction()

