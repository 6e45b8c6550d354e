#pragma once
// Random tensor contents for twins: deterministic per (seed, tensor, row), so
// rows are made on several threads and still give the same bytes. A tensor is
// made and handed on in slabs of rows: never a whole tensor in memory.
#include <cstdint>
#include <vector>

#include "ggml.h"
#include "model/arch_tensors.hpp"
#include "model/gguf_writer.hpp"

namespace moesweep {

struct ModelProfile;
struct RoutingSkew;

struct TwinFillContext {
  uint64_t seed = 0;
  const ModelProfile* profile = nullptr;  // rope_freqs: theta, head dim, rope scaling
  const RoutingSkew* skew = nullptr;      // routing skew: exp_probs_b or router row scales
};

// The type a tensor is written in before the final quantization: F32 for
// norms, router, router bias and rope factors (the quantizer keeps those
// F32), `weight_type` for the matrices (F16 when a row is not a whole number
// of its blocks).
ggml_type skeleton_type(const ArchTensor& t, ggml_type weight_type);

// Gives the tensor's bytes in `type` to `sink`, row by row in slabs.
void produce_twin_tensor(const ArchTensor& t, ggml_type type, const TwinFillContext& ctx,
                         const ByteSink& sink);

// Llama 3.1-style RoPE frequency factors, as the engine's converter computes
// them (conversion/llama.py): one per pair of the head's dimensions.
std::vector<float> llama3_rope_factors(const ModelProfile& profile);

}  // namespace moesweep
