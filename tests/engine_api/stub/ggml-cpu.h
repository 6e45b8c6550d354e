// TEST DOUBLE: not ggml's ggml-cpu.h (see llama.h beside it): from b4234
// (MOESWEEP_STUB_ERA 2 on) the CPU backend's own header; b3889 has none.
#pragma once
#if MOESWEEP_STUB_ERA == 1
#error "b3889 has no ggml-cpu.h"
#endif
#include "ggml-backend.h"
#include "ggml.h"

extern "C" {
struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads);
struct ggml_threadpool* ggml_threadpool_new(struct ggml_threadpool_params* params);
void ggml_threadpool_free(struct ggml_threadpool* threadpool);
void ggml_backend_cpu_set_threadpool(ggml_backend_t backend_cpu, ggml_threadpool_t threadpool);
}
