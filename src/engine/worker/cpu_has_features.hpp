#pragma once
// What the CPU code of an engine without ggml's backend features (ik_llama.cpp,
// mainline before b4234) was compiled for, asked of ggml.h's ggml_cpu_has_*.
// Include it only where ggml.h declares them.
#include <string>
#include <utility>
#include <vector>

#include "ggml.h"

namespace moesweep::worker {

inline std::vector<std::string> features_from_cpu_has() {
  const std::pair<const char*, int> has[] = {
      {"SSE3", ggml_cpu_has_sse3()},
      {"SSSE3", ggml_cpu_has_ssse3()},
      {"AVX", ggml_cpu_has_avx()},
      {"AVX2", ggml_cpu_has_avx2()},
      {"AVX_VNNI", ggml_cpu_has_avx_vnni()},
      {"F16C", ggml_cpu_has_f16c()},
      {"FMA", ggml_cpu_has_fma()},
      {"AVX512", ggml_cpu_has_avx512()},
      {"AVX512_VBMI", ggml_cpu_has_avx512_vbmi()},
      {"AVX512_VNNI", ggml_cpu_has_avx512_vnni()},
      {"AVX512_BF16", ggml_cpu_has_avx512_bf16()},
  };
  std::vector<std::string> out;
  for (const auto& [name, on] : has)
    if (on) out.emplace_back(name);
  return out;
}

}  // namespace moesweep::worker
