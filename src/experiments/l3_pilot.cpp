#include "experiments/l3_pilot.hpp"

#include <algorithm>

#include "model/model_profile.hpp"
#include "report/working_set.hpp"

namespace moesweep {

nlohmann::json to_json(const PilotResult& p) {
  return {{"shape", p.shape.text()},
          {"span_ok", p.span_ok},
          {"plan", p.plan_note},
          {"experts", p.experts},
          {"expert_ff", p.expert_ff},
          {"s_tg", p.s_tg},
          {"routed_bytes_per_token", p.routed_bytes_per_token},
          {"kernel_out_of_cache_gbps", p.kernel_gbps},
          {"memory_bound_share", p.memory_bound_share},
          {"run", p.run_dir.string()}};
}

PilotResult plan_pilot(const L3Shape& shape, const Plan& plan) {
  PilotResult p;
  p.shape = shape;
  p.span_ok = true;
  for (const AutoL3Note& n : plan.auto_l3) {
    p.span_ok = p.span_ok && n.span_found;
    p.plan_note += (p.plan_note.empty() ? "" : "; ") + n.line;
  }
  const auto largest = std::max_element(
      plan.models.begin(), plan.models.end(),
      [](const ModelGroup& a, const ModelGroup& b) { return a.knobs.experts < b.knobs.experts; });
  if (!p.span_ok || largest == plan.models.end()) return p;
  p.experts = largest->knobs.experts;
  p.expert_ff = largest->knobs.expert_ff;
  p.moe_active_params = static_cast<double>(
      count_params(twin_spec_of(largest->choice, largest->knobs, plan.spec).profile).active);
  return p;
}

void take_pilot_figures(const Record& point, PilotResult& p) {
  if (!point.ok || !point.extra.roofline) return;
  const PointRoofline& roof = *point.extra.roofline;
  p.s_tg = point.tg.speed.mean;
  p.routed_bytes_per_token = or_value(roof.routed_bytes_per_token, 0);
  p.kernel_gbps = roof.kernel_gemv_out_of_cache_gbps.value_or(0);
  p.memory_bound_share = memory_bound_share(p.s_tg, p.routed_bytes_per_token, p.kernel_gbps);
}

std::string PilotLadder::verdict(uint64_t usable_l3_bytes) const {
  return cannot_show_cache_effect(best.shape, best.s_tg, best.routed_bytes_per_token,
                                  best.kernel_gbps, usable_l3_bytes);
}

PilotLadder climb_l3_ladder(const std::vector<L3Shape>& ladder,
                            const std::function<PilotResult(const L3Shape&)>& pilot,
                            const std::function<void(const PilotResult&)>& measured) {
  PilotLadder out;
  for (const L3Shape& shape : ladder) {
    out.pilots.push_back(pilot(shape));
    const PilotResult& p = out.pilots.back();
    if (measured) measured(p);
    if (p.memory_bound_share > out.best.memory_bound_share) out.best = p;
    if (p.span_ok && p.memory_bound_share >= kMemoryBoundShare) {
      out.chosen = p;
      break;
    }
  }
  return out;
}

}  // namespace moesweep
