// The worker's threadpool header against the stub of one era (see CMakeLists.txt):
// ggml-cpu.h where the era has it, ggml.h before.
#include "engine/worker/llama_cpp/threadpool_api.hpp"

ggml_threadpool_params moesweep_era_threadpool_params(int n) {
  return ggml_threadpool_params_default(n);
}
