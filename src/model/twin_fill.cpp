#include "model/twin_fill.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "model/model_profile.hpp"
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

struct RowPlan {
  float amp = 0, offset = 0;
  const std::vector<float>* row_scale = nullptr;  // the router's skew, else none
};

RowPlan row_plan(const ArchTensor& t, const RoutingSkew* skew) {
  if (t.role == TensorRole::kNorm) return {0.05f, 1.0f};
  // Variance 1/row_len keeps activations O(1) through the layers.
  RowPlan p{static_cast<float>(std::sqrt(3.0 / static_cast<double>(t.ne[0]))), 0.0f};
  if (t.role == TensorRole::kRouter && skew && !skew->row_scale.empty())
    p.row_scale = &skew->row_scale;
  return p;
}

int64_t rows_of(const ArchTensor& t) {
  int64_t rows = 1;
  for (size_t i = 1; i < t.ne.size(); ++i) rows *= t.ne[i];
  return rows;
}

// Rows [first, first + rows) converted to `type` into `out`.
void make_rows(const ArchTensor& t, ggml_type type, const RowPlan& plan, uint64_t tensor_seed,
               int64_t first, int64_t rows, std::vector<float>& f32, uint8_t* out) {
  const int64_t n = t.ne[0];
  f32.resize(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = first + r;
    const float amp = plan.row_scale && row < int64_t(plan.row_scale->size())
                          ? plan.amp * (*plan.row_scale)[row]
                          : plan.amp;
    random_row(f32.data() + r * n, n, tensor_seed ^ (0xd1b54a32d192ed03ULL * (row + 1)), amp,
               plan.offset);
  }
  if (type == GGML_TYPE_F32)
    std::copy_n(reinterpret_cast<const uint8_t*>(f32.data()), f32.size() * sizeof(float), out);
  else if (type == GGML_TYPE_F16)
    ggml_fp32_to_fp16_row(f32.data(), reinterpret_cast<ggml_fp16_t*>(out), rows * n);
  else
    ggml_quantize_chunk(type, f32.data(), out, 0, rows, n, nullptr);
}

// Whole slabs of rows, each made by all threads in chunks, then handed on.
void produce_random_rows(const ArchTensor& t, ggml_type type, const TwinFillContext& ctx,
                         const ByteSink& sink) {
  constexpr int64_t kRowsPerChunk = 64;
  const int64_t n_rows = rows_of(t);
  const size_t row_bytes = ggml_row_size(type, t.ne[0]);
  const RowPlan plan = row_plan(t, ctx.skew);
  const uint64_t tensor_seed = fnv1a64(t.name, ctx.seed * 0x9e3779b97f4a7c15ULL + 1);
  const int workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // About 16 MiB of output per slab, whole chunks, at least one chunk per worker.
  const int64_t slab_rows =
      std::max<int64_t>(kRowsPerChunk * workers,
                        int64_t(16 << 20) / int64_t(row_bytes) / kRowsPerChunk * kRowsPerChunk);
  std::vector<uint8_t> slab(static_cast<size_t>(std::min(slab_rows, n_rows)) * row_bytes);
  for (int64_t first = 0; first < n_rows; first += slab_rows) {
    const int64_t rows = std::min(slab_rows, n_rows - first);
    const int64_t chunks = (rows + kRowsPerChunk - 1) / kRowsPerChunk;
    auto work = [&](int64_t worker) {
      std::vector<float> f32;
      for (int64_t c = worker; c < chunks; c += workers) {
        const int64_t r0 = c * kRowsPerChunk;
        make_rows(t, type, plan, tensor_seed, first + r0, std::min(kRowsPerChunk, rows - r0), f32,
                  slab.data() + r0 * row_bytes);
      }
    };
    std::vector<std::thread> threads;
    for (int64_t w = 1; w < std::min<int64_t>(workers, chunks); ++w) threads.emplace_back(work, w);
    work(0);
    for (auto& th : threads) th.join();
    sink(slab.data(), static_cast<size_t>(rows) * row_bytes);
  }
}

}  // namespace

ggml_type skeleton_type(const ArchTensor& t, ggml_type weight_type) {
  if (t.role != TensorRole::kWeight) return GGML_TYPE_F32;
  return t.ne[0] % ggml_blck_size(weight_type) == 0 ? weight_type : GGML_TYPE_F16;
}

std::vector<float> llama3_rope_factors(const ModelProfile& profile) {
  const RopeScaling& r = profile.rope_scaling;
  const int64_t dim = profile.shape.head_dim;
  const double low_wavelen = static_cast<double>(r.original_context) / r.low_freq_factor;
  const double high_wavelen = static_cast<double>(r.original_context) / r.high_freq_factor;
  std::vector<float> out;
  for (int64_t i = 0; i < dim; i += 2) {
    const double freq = 1.0 / std::pow(profile.rope_freq_base, static_cast<double>(i) / dim);
    const double wavelen = 2 * M_PI / freq;
    double factor = 1;
    if (wavelen > low_wavelen) {
      factor = r.factor;
    } else if (wavelen >= high_wavelen) {  // between the two: a smooth blend
      const double smooth = (r.original_context / wavelen - r.low_freq_factor) /
                            (r.high_freq_factor - r.low_freq_factor);
      factor = 1 / ((1 - smooth) / r.factor + smooth);
    }
    out.push_back(static_cast<float>(factor));
  }
  return out;
}

void produce_twin_tensor(const ArchTensor& t, ggml_type type, const TwinFillContext& ctx,
                         const ByteSink& sink) {
  if (t.role == TensorRole::kRopeFreqs) {
    const std::vector<float> f = llama3_rope_factors(*ctx.profile);
    sink(f.data(), f.size() * sizeof(float));
    return;
  }
  if (t.role == TensorRole::kRouterBias) {
    // Zero (the engine adds nothing), or the calibrated skew: exp_probs_b per expert.
    std::vector<float> bias(static_cast<size_t>(t.ne[0]), 0.0f);
    if (ctx.skew && ctx.skew->bias.size() == bias.size()) bias = ctx.skew->bias;
    sink(bias.data(), bias.size() * sizeof(float));
    return;
  }
  produce_random_rows(t, type, ctx, sink);
}

}  // namespace moesweep
