#include "model/twin_fill.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <thread>
#include <vector>

#include "ggml-backend.h"
#include "ggml.h"
#include "model/twin_routing.hpp"
#include "util/hash.hpp"

namespace moesweep {
namespace {

// Uniform in [-amp, amp] (+ offset): cheap and varied enough that routing
// spreads tokens over the experts as real weights do.
void random_row(float* out, int64_t n, uint64_t row_seed, float amp, float offset) {
  uint64_t state = row_seed;
  for (int64_t i = 0; i < n; ++i) {
    const double u = (splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
    out[i] = offset + amp * static_cast<float>(2.0 * u - 1.0);
  }
}

struct FillPlan {
  float amp = 0;
  float offset = 0;
};

FillPlan plan_for(std::string_view name, int64_t row_len) {
  if (name.find("norm") != std::string_view::npos) return {0.05f, 1.0f};
  if (name.find("exp_probs_b") != std::string_view::npos) return {0.0f, 0.0f};
  // Variance 1/row_len keeps activations O(1) through the layers.
  return {static_cast<float>(std::sqrt(3.0 / static_cast<double>(row_len))), 0.0f};
}

}  // namespace

void fill_twin_tensor(ggml_tensor* tensor, void* userdata) {
  const auto* ctx = static_cast<const TwinFillContext*>(userdata);
  const std::string_view name = ggml_get_name(tensor);
  const int64_t row_len = tensor->ne[0];
  const int64_t n_rows = ggml_nrows(tensor);
  const size_t row_bytes = ggml_row_size(tensor->type, row_len);
  const FillPlan plan = plan_for(name, row_len);
  const RoutingSkew* skew = ctx->skew;
  // exp_probs_b (one row, one value per expert): the calibrated selection bias.
  const bool skew_bias = skew && !skew->bias.empty() &&
                         name.find("exp_probs_b") != std::string_view::npos &&
                         tensor->type == GGML_TYPE_F32 && row_len == int64_t(skew->bias.size());
  // The router (row e = expert e): each row's spread scaled.
  const bool skew_rows = skew && !skew->row_scale.empty() &&
                         name.ends_with("ffn_gate_inp.weight") &&
                         n_rows == int64_t(skew->row_scale.size());
  if (skew_bias) {
    ggml_backend_tensor_set(tensor, skew->bias.data(), 0, n_rows * row_bytes);
    return;
  }
  const uint64_t tensor_seed = fnv1a64(name, ctx->seed * 0x9e3779b97f4a7c15ULL + 1);

  constexpr int64_t kRowsPerChunk = 64;
  const int64_t n_chunks = (n_rows + kRowsPerChunk - 1) / kRowsPerChunk;
  const int n_workers = static_cast<int>(
      std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, std::max<int64_t>(1, n_chunks)));
  auto work = [&](int worker) {
    std::vector<float> f32(static_cast<size_t>(kRowsPerChunk * row_len));
    std::vector<uint8_t> packed(kRowsPerChunk * row_bytes);
    for (int64_t chunk = worker; chunk < n_chunks; chunk += n_workers) {
      const int64_t first = chunk * kRowsPerChunk;
      const int64_t rows = std::min(kRowsPerChunk, n_rows - first);
      for (int64_t r = 0; r < rows; ++r)
        random_row(f32.data() + r * row_len, row_len,
                   tensor_seed ^ (0xd1b54a32d192ed03ULL * (first + r + 1)),
                   skew_rows ? plan.amp * skew->row_scale[first + r] : plan.amp, plan.offset);
      const void* src = f32.data();
      if (tensor->type == GGML_TYPE_F32) {
        // already in the final layout
      } else if (tensor->type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(f32.data(), reinterpret_cast<ggml_fp16_t*>(packed.data()),
                              rows * row_len);
        src = packed.data();
      } else {
        ggml_quantize_chunk(tensor->type, f32.data(), packed.data(), 0, rows, row_len, nullptr);
        src = packed.data();
      }
      ggml_backend_tensor_set(tensor, src, first * row_bytes, rows * row_bytes);
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < n_workers; ++w) threads.emplace_back(work, w);
  work(0);
  for (auto& t : threads) t.join();
}

}  // namespace moesweep
