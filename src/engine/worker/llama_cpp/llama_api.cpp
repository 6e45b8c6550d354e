// One small function per API feature of cmake/EngineApi.cmake's table, one
// #if branch per variant; engine_api_variants.h says which this engine has.
#include "engine/worker/llama_cpp/llama_api.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <utility>

#include "engine_api_variants.h"
#include "util/error.hpp"
#if defined(MOESWEEP_API_CPU_FEATURES_cpu_has)  // ggml.h declares ggml_cpu_has_* there
#include "engine/worker/cpu_has_features.hpp"
#endif

namespace moesweep::worker::api {
namespace {

// Where a feature is missing: what this engine is and which release brought the feature.
[[noreturn, maybe_unused]] void refuse(const std::string& what, const std::string& since,
                                       const std::string& fix) {
  throw UserError(fmt::format("{}: this engine (llama.cpp {}) has no such setting", what,
                              MOESWEEP_ENGINE_RELEASE),
                  fmt::format("an engine from {} on", since), fix);
}

#if defined(MOESWEEP_API_BACKEND_LOADING_load_all_from_path)
// The package's CPU variants this CPU runs, best first, by each one's own
// ggml_backend_score (what ggml_backend_load_all_from_path ranks them by).
std::vector<std::string> cpu_variants_by_score(const std::string& dir) {
  std::vector<std::pair<int, std::string>> scored;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("libggml-cpu-", 0) != 0 || entry.path().extension() != ".so") continue;
    void* lib = dlopen(entry.path().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    auto score = reinterpret_cast<int (*)()>(dlsym(lib, "ggml_backend_score"));
    const int s = score ? score() : 0;
    dlclose(lib);
    if (s > 0) scored.emplace_back(s, entry.path().string());
  }
  std::sort(scored.rbegin(), scored.rend());
  std::vector<std::string> out;
  for (const auto& [s, path] : scored) out.push_back(path);
  return out;
}
#endif

}  // namespace

const char* variants() {
  return MOESWEEP_ENGINE_API;
}

llama_model* load_model(const std::string& path, const llama_model_params& params) {
#if defined(MOESWEEP_API_MODEL_LOAD_model_load_from_file)
  return llama_model_load_from_file(path.c_str(), params);
#else
  return llama_load_model_from_file(path.c_str(), params);
#endif
}

void free_model(llama_model* model) {
#if defined(MOESWEEP_API_MODEL_LOAD_model_load_from_file)
  llama_model_free(model);
#else
  llama_free_model(model);
#endif
}

llama_context* new_context(llama_model* model, const llama_context_params& params) {
#if defined(MOESWEEP_API_CONTEXT_INIT_init_from_model)
  return llama_init_from_model(model, params);
#else
  return llama_new_context_with_model(model, params);
#endif
}

bool seq_rm(llama_context* ctx, int p0) {
#if defined(MOESWEEP_API_KV_CACHE_memory)
  return llama_memory_seq_rm(llama_get_memory(ctx), 0, p0, -1);
#elif defined(MOESWEEP_API_KV_CACHE_kv_self)
  return llama_kv_self_seq_rm(ctx, 0, p0, -1);
#else
  return llama_kv_cache_seq_rm(ctx, 0, p0, -1);
#endif
}

int seq_pos_max(llama_context* ctx) {
#if defined(MOESWEEP_API_KV_CACHE_memory)
  return static_cast<int>(llama_memory_seq_pos_max(llama_get_memory(ctx), 0));
#elif defined(MOESWEEP_API_KV_CACHE_kv_self)  // empty read 0 here: one sequence, so no cells
  return llama_kv_self_used_cells(ctx) == 0 ? -1
                                            : static_cast<int>(llama_kv_self_seq_pos_max(ctx, 0));
#else
  return llama_get_kv_cache_used_cells(ctx) == 0
             ? -1
             : static_cast<int>(llama_kv_cache_seq_pos_max(ctx, 0));
#endif
}

int n_vocab(const llama_model* model) {
#if defined(MOESWEEP_API_MODEL_FACTS_vocab_api)
  return llama_vocab_n_tokens(llama_model_get_vocab(model));
#else
  return llama_n_vocab(model);
#endif
}

int n_layer(const llama_model* model) {
#if defined(MOESWEEP_API_MODEL_FACTS_vocab_api)
  return llama_model_n_layer(model);
#else
  return llama_n_layer(model);
#endif
}

int n_ctx_train(const llama_model* model) {
#if defined(MOESWEEP_API_MODEL_FACTS_vocab_api)
  return llama_model_n_ctx_train(model);
#else
  return llama_n_ctx_train(model);
#endif
}

void set_gpu_layers(llama_model_params& params, int n_gpu_layers) {
  const bool takes_negative = llama_model_default_params().n_gpu_layers < 0;
  params.n_gpu_layers = n_gpu_layers >= 0 || takes_negative ? n_gpu_layers : 999;
}

void set_flash_attn(llama_context_params& params, int mode) {
#if defined(MOESWEEP_API_FLASH_ATTN_type_enum)
  params.flash_attn_type = static_cast<llama_flash_attn_type>(mode);  // same numbering
#else
  if (mode >= 0) params.flash_attn = mode == 1;  // auto: the engine's default (off)
#endif
}

const char* flash_attn_name(const llama_context_params& params) {
#if defined(MOESWEEP_API_FLASH_ATTN_type_enum)
  return llama_flash_attn_type_name(params.flash_attn_type);
#else
  return params.flash_attn ? "on" : "off";
#endif
}

void set_load_mode(llama_model_params& params, const std::string& mode) {
#if defined(MOESWEEP_API_LOAD_MODE_load_mode)
  // b10361 has no LLAMA_LOAD_MODE_AUTO (v0.4.0 added it): auto keeps the engine's default.
  if (mode == "auto") return;
  params.load_mode = llama_load_mode_from_str(mode.c_str());
#else
  // Before load_mode the loader had two switches; auto keeps their defaults.
  if (mode == "auto") return;
  if (mode == "dio")
    refuse("--load-mode dio (direct I/O)", "b10361 (node-llama-cpp 3.20.0)",
           "use --load-mode none, mmap, mlock or mmap+mlock with this engine");
  params.use_mmap = mode == "mmap" || mode == "mmap+mlock";
  params.use_mlock = mode == "mlock" || mode == "mmap+mlock";
#endif
}

std::shared_ptr<void> set_tensor_overrides(llama_model_params& params,
                                           const std::vector<TensorOverride>& overrides) {
  if (overrides.empty()) return nullptr;
#if defined(MOESWEEP_API_TENSOR_OVERRIDES_buft_overrides)
  struct Holder {
    std::vector<std::string> patterns;
    std::vector<llama_model_tensor_buft_override> rows;
  };
  auto h = std::make_shared<Holder>();
  for (const TensorOverride& o : overrides) h->patterns.push_back(o.pattern);
  for (size_t i = 0; i < overrides.size(); ++i)
    h->rows.push_back({h->patterns[i].c_str(), overrides[i].buft});
  h->rows.push_back({nullptr, nullptr});
  params.tensor_buft_overrides = h->rows.data();
  return h;
#else
  (void)params;
  refuse("-ot / --n-cpu-moe (tensor buffer overrides)", "b5590 (node-llama-cpp 3.9.0)",
         "drop -ot and --n-cpu-moe for this engine, or measure a newer one");
#endif
}

void set_quantize_buffer([[maybe_unused]] llama_model_quantize_params& params,
                         [[maybe_unused]] size_t bytes) {
#if defined(MOESWEEP_API_QUANTIZE_BUFFER_max_buf_size)
  params.max_buf_size = bytes;
#endif
}

void load_backends([[maybe_unused]] const std::string& dir, [[maybe_unused]] bool without_amx) {
#if defined(MOESWEEP_API_BACKEND_LOADING_load_all_from_path)
  if (dir.empty()) return;
  if (!without_amx) return ggml_backend_load_all_from_path(dir.c_str());
  // ggml's choice by score, less the variants whose features name AMX.
  for (const std::string& path : cpu_variants_by_score(dir)) {
    ggml_backend_reg_t reg = ggml_backend_load(path.c_str());
    if (!reg) continue;
    const std::vector<std::string> features = cpu_features(reg);
    if (std::none_of(features.begin(), features.end(),
                     [](const std::string& f) { return f.rfind("AMX", 0) == 0; }))
      return;
    ggml_backend_unload(reg);
  }
#endif
}

std::vector<std::string> cpu_features([[maybe_unused]] ggml_backend_reg_t cpu) {
  std::vector<std::string> out;
#if defined(MOESWEEP_API_CPU_FEATURES_get_features)
  auto get = reinterpret_cast<ggml_backend_get_features_t>(
      ggml_backend_reg_get_proc_address(cpu, "ggml_backend_get_features"));
  if (!get) return out;
  for (const ggml_backend_feature* f = get(cpu); f && f->name; ++f) {
    if (std::strcmp(f->value, "1") == 0)
      out.emplace_back(f->name);
    else if (std::strcmp(f->value, "0") != 0)
      out.push_back(fmt::format("{}={}", f->name, f->value));
  }
#elif defined(MOESWEEP_API_CPU_FEATURES_cpu_has)
  out = features_from_cpu_has();
#endif
  return out;
}

}  // namespace moesweep::worker::api
