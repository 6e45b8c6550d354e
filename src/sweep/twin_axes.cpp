#include "sweep/twin_axes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>

#include "engine/engine_limits.hpp"
#include "hw/topology.hpp"
#include "model/quant_types.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"
#include "util/seeded_shuffle.hpp"

namespace moesweep {

std::string knobs_text(const TwinKnobs& k) {
  std::string out;
  auto add = [&](const std::string& part) {
    out += fmt::format("{}{}", out.empty() ? "" : ", ", part);
  };
  if (k.experts > 0) add(fmt::format("experts {}", k.experts));
  if (k.expert_ff > 0) add(fmt::format("expert_ff {}", k.expert_ff));
  if (k.routing_skew > 0) add(fmt::format("skew {}", k.routing_skew));
  return out.empty() ? out : fmt::format(" [{}]", out);
}

std::vector<std::pair<size_t, int>> block_order(size_t n, int blocks, uint64_t seed) {
  std::vector<std::pair<size_t, int>> out;
  if (blocks <= 1) {
    for (size_t i = 0; i < n; ++i) out.emplace_back(i, 0);
    return out;
  }
  std::vector<size_t> order(n);
  for (int b = 1; b <= blocks; ++b) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::mt19937_64 rng(seed * 1000003 + b);
    seeded_shuffle(order, rng);  // the same orders from a seed on every standard library
    for (size_t i : order) out.emplace_back(i, b);
  }
  return out;
}

TwinSpec twin_spec_of(const ModelChoice& choice, const TwinKnobs& knobs, const SweepSpec& spec) {
  ShapeOverrides o = spec.twin_overrides;
  if (knobs.experts > 0) o.experts = knobs.experts;
  if (knobs.expert_ff > 0) o.expert_ff = knobs.expert_ff;
  return twin_spec_for(choice.twin_profile, spec.twin_scale, o, choice.quant, spec.twin_seed,
                       knobs.routing_skew);
}

namespace {

// One expert's bytes over every MoE layer of the twin with expert FFN `ff`.
uint64_t expert_bytes_all_layers(const ModelChoice& choice, const SweepSpec& spec, int ff) {
  const ModelShape m = twin_spec_of(choice, {0, ff, 0}, spec).profile.shape;
  const double bpw = find_quant_type(choice.quant).approx_bpw;
  const double moe_layers =
      static_cast<double>(std::max<int64_t>(1, m.layers - m.dense_lead_layers));
  return static_cast<uint64_t>(moe_layers * 3.0 * static_cast<double>(m.hidden) *
                               static_cast<double>(m.expert_ff) * bpw / 8);
}

// auto-l3's expert FFN sizes: those given, else the largest whose span is
// enough (auto_l3.hpp), else the twin's own (with a warning).
std::vector<int> auto_l3_ffs(const ModelChoice& choice, const SweepSpec& spec, const PlanL3& l3,
                             std::vector<AutoL3Note>& notes) {
  if (!spec.twin_expert_ff.empty()) return spec.twin_expert_ff;
  const ModelShape own = twin_spec_of(choice, {}, spec).profile.shape;
  const int used = static_cast<int>(own.experts_used);
  const int ff = expert_ff_for_span(spec.twin_experts_auto, l3.bytes, used, 16384, [&](int f) {
    return expert_bytes_all_layers(choice, spec, f);
  });
  if (ff > 0) return {ff};
  notes.push_back(
      {fmt::format("auto-l3: no expert FFN (multiple of 256) gives {} points between 1/8x and 8x "
                   "of {:.1f} MiB "
                   "with {} at or below 1x; measuring the twin's own. Lower --hidden, --layers or "
                   "--experts-used, or widen the range",
                   kMinSpanPoints, static_cast<double>(l3.bytes) / (1 << 20), kMinPointsInCache),
       false});
  return {0};
}

}  // namespace

std::vector<TwinKnobs> twin_knobs_for(const ModelChoice& choice, const SweepSpec& spec,
                                      std::vector<std::string>& warnings,
                                      std::vector<AutoL3Note>& auto_l3) {
  const bool given = !spec.twin_experts.empty() || spec.twin_experts_auto.on() ||
                     !spec.twin_expert_ff.empty() || !spec.routing_skew.empty();
  const bool file = !choice.file.empty();
  if (file || twin_spec_of(choice, {}, spec).profile.shape.experts == 0) {
    if (given)
      warnings.push_back(fmt::format(
          "--experts/--expert-ff/--routing-skew apply to MoE twins only; {} '{}' is measured once",
          file ? "the file" : "the dense twin", file ? choice.file : choice.twin_profile));
    return {TwinKnobs{}};
  }
  const std::vector<double> skews =
      spec.routing_skew.empty() ? std::vector<double>{0} : spec.routing_skew;
  if (!spec.twin_experts_auto.on()) {
    std::vector<TwinKnobs> out;
    for (int ff : spec.twin_expert_ff.empty() ? std::vector<int>{0} : spec.twin_expert_ff)
      for (int e : spec.twin_experts.empty() ? std::vector<int>{0} : spec.twin_experts)
        for (double s : skews) out.push_back({e, ff, s});
    return out;
  }
  const int threads =
      spec.threads.empty() ? 1 : *std::max_element(spec.threads.begin(), spec.threads.end());
  const PlanL3 l3 = l3_for_plan(threads);
  std::vector<TwinKnobs> out;
  std::vector<AutoL3Note> notes;
  for (int ff : auto_l3_ffs(choice, spec, l3, notes)) {
    const uint64_t bytes = expert_bytes_all_layers(choice, spec, ff);
    const int used =
        static_cast<int>(twin_spec_of(choice, {0, ff, 0}, spec).profile.shape.experts_used);
    const std::vector<int> experts = experts_for_l3(spec.twin_experts_auto, l3.bytes, bytes, used);
    const SpanCoverage c = span_coverage(experts, l3.bytes, bytes);
    notes.push_back({fmt::format(
        "auto-l3 plans for {:.2f} MiB ({}; hwloc L3 {:.1f} MiB, measured {}): expert FFN {} "
        "({:.0f} KiB per expert over the MoE layers), {} points between 1/8x and 8x, {} at or "
        "below 1x",
        static_cast<double>(l3.bytes) / (1 << 20), l3.source,
        static_cast<double>(l3.nominal) / (1 << 20),
        l3.measured ? fmt::format("{:.2f} MiB", static_cast<double>(l3.measured) / (1 << 20))
                    : "not yet (moesweep hw --cache)",
        ff > 0 ? std::to_string(ff) : "the twin's own", static_cast<double>(bytes) / 1024,
        c.in_span, c.in_cache)});
    for (int e : experts)
      for (double s : skews) out.push_back({e, ff, s});
  }
  for (const AutoL3Note& n : notes) warnings.push_back(n.line);
  auto_l3.insert(auto_l3.end(), notes.begin(), notes.end());
  return out;
}

}  // namespace moesweep
