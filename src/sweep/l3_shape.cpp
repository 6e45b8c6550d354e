#include "sweep/l3_shape.hpp"

#include <fmt/format.h>

#include <cmath>

#include "model/model_profile.hpp"

namespace moesweep {
namespace {

constexpr int kHeads = 2, kVocab = 256;

}  // namespace

std::string L3Shape::text() const {
  return fmt::format("hidden {}, {} experts used, {} thread{}", hidden, experts_used, threads,
                     threads == 1 ? "" : "s");
}

std::vector<L3Shape> l3_shape_ladder(int cores) {
  std::vector<L3Shape> out;
  for (const auto& [hidden, used] : {std::pair{256, 8}, {256, 4}, {512, 8}, {512, 4}, {1024, 8}}) {
    out.push_back({hidden, used, 1});
    if (cores > 1) out.push_back({hidden, used, cores});
  }
  return out;
}

std::map<std::string, nlohmann::json> l3_sweep_settings(const L3Shape& shape,
                                                        const L3RunSettings& run, int dense_ff) {
  std::map<std::string, nlohmann::json> s = {
      {"name", run.name},
      {"model", dense_ff > 0 ? "qwen3-moe,llama3-70b" : "qwen3-moe"},
      {"quant", "Q8_0"},
      {"scale", "tiny"},
      {"layers", 1},
      {"hidden", shape.hidden},
      {"heads", kHeads},
      {"vocab", kVocab},
      {"experts-used", shape.experts_used},
      {"experts", "auto-l3:0.125-8/4"},
      {"threads", std::to_string(shape.threads)},
      {"depths", "0"},
      {"n-prompt", 32},
      // The prompt is one ubatch: the context the plan derives (depth 0 + PP +
      // TG, at least 64) holds it, so the engine keeps the planned ubatch (the
      // default 512 it would cut to the context, and every point would fail).
      {"ubatch-size", 32},
      {"n-gen", run.n_gen},
      {"repetitions", run.repetitions},
      {"counters", "none"}};
  if (dense_ff > 0) s["dense-ff"] = dense_ff;
  if (run.blocks > 1) {
    s["blocks"] = run.blocks;
    s["block-seed"] = static_cast<int64_t>(run.block_seed);
  }
  return s;
}

int dense_ff_matching(const L3Shape& shape, double moe_active_params) {
  const ModelProfile real = load_model_profile("llama3-70b");
  int best = 256;
  double best_gap = 1e300;
  for (int ff = 256; ff <= 65536; ff += 256) {
    ShapeOverrides o;
    o.layers = 1, o.hidden = shape.hidden, o.heads = kHeads, o.vocab = kVocab, o.dense_ff = ff;
    const double active = static_cast<double>(count_params(scale_profile(real, "tiny", o)).active);
    const double gap = std::abs(active - moe_active_params);
    if (gap < best_gap) best_gap = gap, best = ff;
    if (active > moe_active_params) break;
  }
  return best;
}

double memory_bound_share(double s_tg, double routed_bytes_per_token, double kernel_gbps) {
  return kernel_gbps > 0 ? s_tg * routed_bytes_per_token / (kernel_gbps * 1e9) : 0;
}

std::string cannot_show_cache_effect(const L3Shape& best, double s_tg,
                                     double routed_bytes_per_token, double kernel_gbps,
                                     uint64_t usable_l3_bytes) {
  const double token_us = s_tg > 0 ? 1e6 / s_tg : 0;
  const double expert_us = kernel_gbps > 0 ? 1e6 * routed_bytes_per_token / (kernel_gbps * 1e9) : 0;
  return fmt::format(
      "this machine cannot show a cache effect with these shapes: at best ({}) a token takes "
      "{:.0f} us, of which reading its experts at the kernel's out-of-cache speed takes {:.0f} "
      "us ({:.0f}%, under half); the engine's fixed cost per token hides where the bytes come "
      "from, and larger experts leave no pool inside the {:.1f} MiB usable cache",
      best.text(), token_us, expert_us,
      100 * memory_bound_share(s_tg, routed_bytes_per_token, kernel_gbps),
      static_cast<double>(usable_l3_bytes) / 1048576.0);
}

}  // namespace moesweep
