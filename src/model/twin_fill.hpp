#pragma once
// Random tensor contents for twins: deterministic per (seed, tensor, row), so
// rows can be filled on several threads and still give the same bytes.
#include <cstdint>

struct ggml_tensor;

namespace moesweep {

struct RoutingSkew;

struct TwinFillContext {
  uint64_t seed;
  const RoutingSkew* skew = nullptr;  // routing skew: exp_probs_b or router row scales
};

// llama_model_set_tensor_data_t: `userdata` is a TwinFillContext*.
void fill_twin_tensor(ggml_tensor* tensor, void* userdata);

}  // namespace moesweep
