#pragma once
// The twin axes of a sweep (issue 11): routed experts (experts used held
// fixed), expert FFN size and routing skew. Each combination is a twin of its
// own (its own file, cached by the hash of its spec) and so a model group of
// the plan. The axes apply to MoE twins only; a GGUF file or a dense twin gets
// one group with the knobs blank.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/twin_spec.hpp"
#include "sweep/auto_l3.hpp"

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

// What --experts auto-l3 planned for one model choice (auto_l3.hpp): its
// line, which is also a warning of the plan (the dry run prints it), and
// whether an expert FFN gives the span. `l3-run`'s pilot reads these fields.
struct AutoL3Note {
  std::string line;        // "auto-l3 plans for ..." or "auto-l3: no expert FFN ..."
  bool span_found = true;  // false: no expert FFN gives the points the span needs
};

// The knob combinations of one model choice, in plan order (experts, then
// expert FFN, then skew). `warnings` gets a line when the axes are given but
// the model takes none (a GGUF file, a dense twin), and auto-l3's lines,
// which `auto_l3` gets too.
std::vector<TwinKnobs> twin_knobs_for(const ModelChoice& choice, const SweepSpec& spec,
                                      std::vector<std::string>& warnings,
                                      std::vector<AutoL3Note>& auto_l3);

// The order in which `n` twins are measured in `blocks` blocks: (twin index,
// block number) pairs; blocks == 1: 0..n-1 with block 0 (not blocked); else
// blocks 1..N, each every twin once, shuffled by a seeded generator of its own.
std::vector<std::pair<size_t, int>> block_order(size_t n, int blocks, uint64_t seed);

// The twin of a model choice with these knobs (the one twin_spec_for call of
// the sweep: plan and runner alike).
TwinSpec twin_spec_of(const ModelChoice& choice, const TwinKnobs& knobs, const SweepSpec& spec);

}  // namespace moesweep
