#include <fmt/format.h>

#include <cmath>
#include <string>

#include "model/quant_types.hpp"
#include "model/twin_routing.hpp"
#include "model/twin_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

bool any_override(const ShapeOverrides& o) {
  return o.layers || o.hidden || o.heads || o.expert_ff || o.dense_ff || o.vocab || o.experts ||
         o.experts_used || o.q_lora_rank || o.kv_lora_rank;
}

}  // namespace

TwinSpec twin_spec_for(const std::string& profile, const std::string& scale,
                       const ShapeOverrides& overrides, const std::string& quant, uint64_t seed,
                       double routing_skew) {
  TwinSpec t;
  t.profile = scale_profile(load_model_profile(profile), scale, overrides);
  if (!(routing_skew >= 0 && routing_skew <= kMaxRoutingSkew)) {
    throw UserError(fmt::format("--routing-skew {} is out of range", routing_skew),
                    fmt::format("0 <= s <= {} (0 = the twin's random routing)", kMaxRoutingSkew),
                    "use e.g. --routing-skew 0,0.5,1,1.5");
  }
  if (routing_skew > 0 && t.profile.shape.experts == 0) {
    throw UserError(
        fmt::format("--routing-skew {} for '{}', a dense model", routing_skew, t.profile.name),
        "a MoE twin: routing skew shapes which experts are chosen",
        "leave --routing-skew out for dense twins (a sweep applies it to its MoE twins only)");
  }
  t.routing_skew = routing_skew;
  t.scale = any_override(overrides) ? scale + "+custom" : scale;
  t.quant = find_quant_type(quant).name;  // refuses an unknown type before anything runs
  t.seed = seed;
  return t;
}

TwinSpec with_layout(TwinSpec spec, const TwinLayout& layout) {
  if (spec.routing_skew > 0 && !layout.v3_router)
    throw UserError(fmt::format("--routing-skew {} on a twin for an engine without DeepSeek-V3's "
                                "router (its bias exp_probs_b carries the skew)",
                                spec.routing_skew),
                    "engines from node-llama-cpp 3.4.0 (b4435) on",
                    "leave --routing-skew out, or sweep newer engines only");
  spec.layout = layout;
  apply_router_layout(spec.profile, layout);
  return spec;
}

}  // namespace moesweep
