#include <string>

#include "model/quant_types.hpp"
#include "model/twin_spec.hpp"

namespace moesweep {
namespace {

bool any_override(const ShapeOverrides& o) {
  return o.layers || o.hidden || o.heads || o.expert_ff || o.dense_ff || o.vocab || o.experts ||
         o.experts_used || o.q_lora_rank || o.kv_lora_rank;
}

}  // namespace

TwinSpec twin_spec_for(const std::string& profile, const std::string& scale,
                       const ShapeOverrides& overrides, const std::string& quant, uint64_t seed) {
  TwinSpec t;
  t.profile = scale_profile(load_model_profile(profile), scale, overrides);
  t.scale = any_override(overrides) ? scale + "+custom" : scale;
  t.quant = find_quant_type(quant).name;  // refuses an unknown type before anything runs
  t.seed = seed;
  return t;
}

}  // namespace moesweep
