// TEST DOUBLE: not ggml's ggml.h (see llama.h beside it). Before b4234
// (MOESWEEP_STUB_ERA 1) the threadpool and CPU-feature calls live here.
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#define GGML_MAX_N_THREADS 512
struct ggml_threadpool_params {
  bool cpumask[GGML_MAX_N_THREADS];
  int n_threads;
  int prio;
  uint32_t poll;
  bool strict_cpu;
  bool paused;
};
struct ggml_threadpool;
typedef struct ggml_threadpool* ggml_threadpool_t;
#if MOESWEEP_STUB_ERA == 1
struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads);
struct ggml_threadpool* ggml_threadpool_new(struct ggml_threadpool_params* params);
void ggml_threadpool_free(struct ggml_threadpool* threadpool);
int ggml_cpu_has_sse3(void);
int ggml_cpu_has_ssse3(void);
int ggml_cpu_has_avx_vnni(void);
int ggml_cpu_has_avx512_vbmi(void);
int ggml_cpu_has_avx(void);
int ggml_cpu_has_avx2(void);
int ggml_cpu_has_f16c(void);
int ggml_cpu_has_fma(void);
int ggml_cpu_has_avx512(void);
int ggml_cpu_has_avx512_vnni(void);
int ggml_cpu_has_avx512_bf16(void);
#endif
}
