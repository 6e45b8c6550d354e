#pragma once
// The twin axes of a sweep (issue 11): routed experts (experts used held
// fixed), expert FFN size and routing skew. Each combination is a twin of its
// own (its own file, cached by the hash of its spec) and so a model group of
// the plan. The axes apply to MoE twins only; a GGUF file or a dense twin gets
// one group with the knobs blank.
#include <cstdint>
#include <string>
#include <vector>

#include "model/twin_spec.hpp"

namespace moesweep {

struct SweepSpec;
struct ModelChoice;

// One twin's knobs; 0 = the twin's own value (the profile's, scaled).
struct TwinKnobs {
  int experts = 0;
  int expert_ff = 0;
  double routing_skew = 0;
};

// " [experts 64, expert_ff 512, skew 1.5]" for the knobs set; "" for none.
std::string knobs_text(const TwinKnobs& knobs);

// `--experts auto-l3:LO-HI`: expert counts whose total routed-expert bytes per
// MoE layer are LO, 2 LO, 4 LO, ... up to HI times the machine's L3.
struct ExpertsAutoL3 {
  double lo = 0, hi = 0;
  bool on() const { return hi > 0; }
};

// Whether --experts is written as auto-l3:LO-HI.
bool is_experts_auto_l3(const std::string& text);
// "auto-l3:0.25-16" -> {0.25, 16}; UserError naming `origin` when malformed.
ExpertsAutoL3 parse_experts_auto_l3(const std::string& text, const std::string& origin);

// The L3 size auto-l3 plans for: $MOESWEEP_L3_BYTES (to plan for another
// machine, and for tests), else this machine's total L3 from hwloc. UserError
// when neither is known (a VM that hides its caches).
uint64_t l3_bytes_for_plan();

// The expert counts of auto-l3 for a twin whose one routed expert (gate, up,
// down of one layer) takes `expert_bytes`: each count at least `experts_used`
// + 1 (a choice to make) and at most the engine's limit, duplicates removed.
std::vector<int> experts_for_l3(const ExpertsAutoL3& range, uint64_t l3_bytes,
                                uint64_t expert_bytes, int experts_used);

// The knob combinations of one model choice, in plan order (experts, then
// expert FFN, then skew). `warnings` gets a line when the axes are given but
// the model takes none (a GGUF file, a dense twin).
std::vector<TwinKnobs> twin_knobs_for(const ModelChoice& choice, const SweepSpec& spec,
                                      std::vector<std::string>& warnings);

// The twin of a model choice with these knobs (the one twin_spec_for call of
// the sweep: plan and runner alike).
TwinSpec twin_spec_of(const ModelChoice& choice, const TwinKnobs& knobs, const SweepSpec& spec);

}  // namespace moesweep
