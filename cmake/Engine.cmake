# The engine (llama.cpp) behind moesweep's worker, in one of three forms:
#   MOESWEEP_ENGINE=prebuilt  the registry's prebuilt libraries (libllama.<release>.so,
#                             libggml*.so, one libggml-cpu-<variant>.so per CPU family) in
#                             MOESWEEP_ENGINE_LIB_DIR; headers from MOESWEEP_LLAMA_DIR (the
#                             same release's source); nothing of the engine is compiled
#   MOESWEEP_ENGINE=source    built from MOESWEEP_LLAMA_DIR as part of our build, natively
#                             tuned (GGML_NATIVE), static
#   MOESWEEP_ENGINE_BUILD_DIR another build directory's static engine (the sanitizer build
#                             links build/'s instead of compiling the engine twice)
# Only the worker (src/engine/worker, tools/moesweep-worker) links libllama; the rest of
# moesweep links ggml-base for GGUF files.
if(NOT EXISTS "${MOESWEEP_LLAMA_DIR}/include/llama.h")
  message(FATAL_ERROR
    "llama.cpp not found at MOESWEEP_LLAMA_DIR='${MOESWEEP_LLAMA_DIR}'.\n"
    "Run scripts/setup to fetch the pinned engine, or pass -DMOESWEEP_LLAMA_DIR=/path/to/llama.cpp.")
endif()

set(MOESWEEP_ENGINE "source" CACHE STRING "prebuilt (registry libraries) or source (compiled here)")
set_property(CACHE MOESWEEP_ENGINE PROPERTY STRINGS prebuilt source)
set(MOESWEEP_ENGINE_LIB_DIR "" CACHE PATH "the prebuilt engine's libraries (MOESWEEP_ENGINE=prebuilt)")
set(MOESWEEP_ENGINE_PACKAGE "" CACHE STRING "the registry package the prebuilt libraries came from")
set(MOESWEEP_ENGINE_BUILD_DIR "" CACHE PATH
    "A moesweep build directory (source engine) whose engine/ libraries to link instead of building it again")
if(MOESWEEP_ENGINE_PREBUILT)  # the name rounds 1-2 used for MOESWEEP_ENGINE_BUILD_DIR
  set(MOESWEEP_ENGINE_BUILD_DIR "${MOESWEEP_ENGINE_PREBUILT}")
endif()
set(_inc "${MOESWEEP_LLAMA_DIR}/include;${MOESWEEP_LLAMA_DIR}/ggml/include")

# What --version and every record state about the engine: the source tree's commit and the
# release setup wrote beside it (the npm package's release name).
# A source snapshot names its commit in .source-commit (git would answer for
# whatever repository the snapshot was unpacked inside).
if(EXISTS "${MOESWEEP_LLAMA_DIR}/.source-commit")
  file(STRINGS "${MOESWEEP_LLAMA_DIR}/.source-commit" MOESWEEP_ENGINE_COMMIT LIMIT_COUNT 1)
else()
  execute_process(COMMAND git -C ${MOESWEEP_LLAMA_DIR} rev-parse HEAD
    OUTPUT_VARIABLE MOESWEEP_ENGINE_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT MOESWEEP_ENGINE_COMMIT)
  set(MOESWEEP_ENGINE_COMMIT "unknown")
endif()
set(MOESWEEP_ENGINE_RELEASE "unknown")
if(EXISTS "${MOESWEEP_LLAMA_DIR}/.moesweep-release")
  file(STRINGS "${MOESWEEP_LLAMA_DIR}/.moesweep-release" MOESWEEP_ENGINE_RELEASE LIMIT_COUNT 1)
endif()
set(MOESWEEP_ENGINE_BACKEND_DIR "")  # where the worker loads dynamic backends from ("" = built in)

set(MOESWEEP_ENGINE_KIND "llama.cpp" CACHE STRING
    "the engine's API: llama.cpp, or ik_llama.cpp (the worker only; `moesweep engine add --ik-llama`)")
set_property(CACHE MOESWEEP_ENGINE_KIND PROPERTY STRINGS llama.cpp ik_llama.cpp)

if(MOESWEEP_ENGINE_KIND STREQUAL "ik_llama.cpp")
  include(${CMAKE_CURRENT_LIST_DIR}/EngineIk.cmake)
elseif(MOESWEEP_ENGINE STREQUAL "prebuilt")
  include(${CMAKE_CURRENT_LIST_DIR}/EnginePrebuilt.cmake)
elseif(MOESWEEP_ENGINE_BUILD_DIR)
  set(_engine ${MOESWEEP_ENGINE_BUILD_DIR}/engine)
  if(NOT EXISTS ${_engine}/src/libllama.a)
    message(FATAL_ERROR "MOESWEEP_ENGINE_BUILD_DIR=${MOESWEEP_ENGINE_BUILD_DIR} holds no engine/src/libllama.a: build it first")
  endif()
  find_package(OpenMP REQUIRED)
  find_package(Threads REQUIRED)
  add_library(ggml-base STATIC IMPORTED GLOBAL)
  set_target_properties(ggml-base PROPERTIES IMPORTED_LOCATION ${_engine}/ggml/src/libggml-base.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "m;Threads::Threads;$<LINK_ONLY:OpenMP::OpenMP_CXX>")
  add_library(ggml-cpu STATIC IMPORTED GLOBAL)
  set_target_properties(ggml-cpu PROPERTIES IMPORTED_LOCATION ${_engine}/ggml/src/libggml-cpu.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "ggml-base;OpenMP::OpenMP_CXX")
  add_library(ggml STATIC IMPORTED GLOBAL)
  set_target_properties(ggml PROPERTIES IMPORTED_LOCATION ${_engine}/ggml/src/libggml.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "ggml-cpu;ggml-base;dl")
  add_library(llama STATIC IMPORTED GLOBAL)
  set_target_properties(llama PROPERTIES IMPORTED_LOCATION ${_engine}/src/libllama.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "ggml")
  set(MOESWEEP_ENGINE_BUILD_TEXT "source (static, from ${MOESWEEP_ENGINE_BUILD_DIR})")
  set(MOESWEEP_ENGINE_STATIC_VARIANT "native")
else()
  # A portable engine (AVX2/FMA/F16C/BMI2, ggml's non-native default) is for a
  # binary carried to another machine, where -march=native of this one could
  # fault; benchmarks on the build machine itself keep the native engine.
  option(MOESWEEP_ENGINE_PORTABLE "Build the engine for any x86-64 with AVX2 instead of -march=native" OFF)
  if(MOESWEEP_ENGINE_PORTABLE)
    set(GGML_NATIVE OFF CACHE BOOL "" FORCE)
    set(MOESWEEP_ENGINE_BUILD_TEXT "source, portable AVX2 (GGML_NATIVE off)")
    set(MOESWEEP_ENGINE_STATIC_VARIANT "portable-avx2")
  else()
    set(GGML_NATIVE ON CACHE BOOL "" FORCE)
    set(MOESWEEP_ENGINE_BUILD_TEXT "source, GGML_NATIVE")
    set(MOESWEEP_ENGINE_STATIC_VARIANT "native")
  endif()
  set(BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
  foreach(opt LLAMA_BUILD_TESTS LLAMA_BUILD_EXAMPLES
              LLAMA_BUILD_APP LLAMA_CURL LLAMA_OPENSSL LLAMA_BUILD_UI LLAMA_USE_PREBUILT_UI)
    set(${opt} OFF CACHE BOOL "" FORCE)
  endforeach()
  # The engine's own tools (llama-bench, llama-server) come from this same tree
  # and flags, so side-by-side benchmarks and serve-bench measure one engine
  # build; EXCLUDE_FROM_ALL below builds them only when asked for
  # (cmake --build build --target llama-bench llama-server). llama-server comes
  # without its web UI: no npm, no download.
  foreach(opt LLAMA_BUILD_COMMON LLAMA_BUILD_TOOLS LLAMA_BUILD_SERVER)
    set(${opt} ON CACHE BOOL "" FORCE)
  endforeach()
  add_subdirectory(${MOESWEEP_LLAMA_DIR} ${CMAKE_BINARY_DIR}/engine EXCLUDE_FROM_ALL)
  # Trees before b4234 (November 2024) build all of ggml as one library: the
  # names the rest of the build links stand for it there.
  set(MOESWEEP_ENGINE_CPU_TARGET ggml-cpu)
  foreach(_t ggml-base ggml-cpu)
    if(NOT TARGET ${_t})
      add_library(${_t} INTERFACE)
      target_link_libraries(${_t} INTERFACE ggml)
      set(MOESWEEP_ENGINE_CPU_TARGET ggml)
    endif()
  endforeach()
  include(${CMAKE_CURRENT_LIST_DIR}/EngineAmx.cmake)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/EngineApi.cmake)
if(NOT MOESWEEP_ENGINE_KIND STREQUAL "ik_llama.cpp")
  moesweep_choose_engine_api("${_inc}" "${MOESWEEP_ENGINE_API_DIR}" MOESWEEP_ENGINE_API_CHOSEN)
  message(STATUS "moesweep: engine API ${MOESWEEP_ENGINE_API_CHOSEN}")
endif()
moesweep_engine_reads_of("${MOESWEEP_LLAMA_DIR}" MOESWEEP_ENGINE_READS)
moesweep_engine_max_experts_of("${MOESWEEP_LLAMA_DIR}" MOESWEEP_ENGINE_MAX_EXPERTS)
message(STATUS "moesweep: the engine reads ${MOESWEEP_ENGINE_READS}, up to "
               "${MOESWEEP_ENGINE_MAX_EXPERTS} experts per layer")
