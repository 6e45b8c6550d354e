#pragma once
// Mainline llama.cpp's CPU backend functions (threadpools), reached through
// ggml's backend registry so that one worker source serves a dynamically
// loaded backend and a linked-in one.
#include "engine_api_variants.h"
#include "ggml-backend.h"
#include "ggml.h"
#if defined(MOESWEEP_API_CPU_HEADER_ggml_cpu_h)  // before b4234, threadpools are in ggml.h
#include "ggml-cpu.h"
#endif

namespace moesweep::worker {

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
