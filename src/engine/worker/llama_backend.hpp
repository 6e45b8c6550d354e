#pragma once
// The engine's backends in the worker: loaded from the prebuilt package's
// directory when the engine was built with dynamic backends (ggml's registry
// then picks the best CPU variant for this CPU), or linked in. The CPU
// backend's own functions (threadpools) are reached through the registry, so
// one worker source serves both builds.
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-cpu.h"

namespace moesweep::worker {

// Logs, backends, llama_backend_init; once. Throws UserError when no CPU
// backend loads (a package without a variant for this CPU).
void init_engine_backends();

// The CPU variant in use: "haswell", "zen4", ... for a dynamically loaded
// backend (its libggml-cpu-<variant>.so), "built-in" when linked statically.
std::string cpu_variant();
// The libllama file in use, "" when linked statically.
std::string llama_library_path();
// The SONAME a loaded library says it is (libllama.v0.4.0.so), "" if none.
std::string soname_of(const std::string& loaded_library);
// What the loaded CPU backend reports it was built for (AVX2, AVX512, ...).
std::vector<std::string> cpu_backend_features();

struct ThreadpoolApi {
  ggml_threadpool_t (*create)(ggml_threadpool_params*) = nullptr;
  void (*destroy)(ggml_threadpool_t) = nullptr;
  // For graphs computed on the CPU backend directly (the expert GEMV).
  void (*attach)(ggml_backend_t, ggml_threadpool_t) = nullptr;
  void (*set_n_threads)(ggml_backend_t, int) = nullptr;
};
const ThreadpoolApi& threadpool_api();
ggml_backend_buffer_type_t cpu_buffer_type();

}  // namespace moesweep::worker
