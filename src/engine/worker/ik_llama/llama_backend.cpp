// ik_llama.cpp's side of engine/worker/llama_backend.hpp. Its ggml predates
// ggml's backend registry: the CPU backend is linked in, and what it was
// compiled for is asked of ggml_cpu_has_*.
#include <mutex>

#include "engine/worker/cpu_has_features.hpp"
#include "engine/worker/engine_log.hpp"
#include "engine/worker/llama_backend.hpp"
#include "engine/worker/loaded_library.hpp"
#include "ggml.h"
#include "llama.h"

namespace moesweep::worker {

void init_engine_backends() {
  static std::once_flag once;
  std::call_once(once, [] {
    install_engine_log();
    llama_backend_init();
  });
}

const char* engine_kind() {
  return "ik_llama.cpp";
}

// The widest vector ISA the build uses: ik_llama.cpp has no per-CPU variants
// to pick from at run time, so its build flags decide (-DGGML_NATIVE=OFF: avx2).
std::string cpu_variant() {
  if (ggml_cpu_has_avx512()) return "avx512";
  if (ggml_cpu_has_avx2()) return "avx2";
  if (ggml_cpu_has_avx()) return "avx";
  return "generic";
}

std::string llama_library_path() {
  return loaded_library("libllama.");
}

// `engine add --ik-llama` copies the libraries it built beside the worker,
// which was linked against them; there is no release name to check.
void check_engine_library(const std::string&, const std::string&) {}

std::vector<std::string> cpu_backend_features() {
  return features_from_cpu_has();
}

// ik_llama.cpp's quantizer has no such limit.
void set_quantize_buffer(llama_model_quantize_params&, size_t) {}

// One snapshot's API (cmake/EngineIk.cmake): no variants to choose from.
const char* engine_api_variants() {
  return "";
}

}  // namespace moesweep::worker
