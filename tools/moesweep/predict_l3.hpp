#pragma once
// `predict --trace FILE`: the decode roofline with and without the L3 term
// (analysis/l3_term.hpp), the hit rate taken from a routing trace's LRU curve.
#include <string>

namespace moesweep::cli {

struct PredictL3Input {
  std::string trace;          // routing.trace.zst or its directory
  std::string model_profile;  // profiles/models name: where routed and hot bytes come from
  double bytes_per_weight = 0;
  double kv_bytes = 0;  // per token at the depth predicted (streamed, never cached)
  double l3_bytes = 0;  // the hardware's L3 (0: this machine's, from hwloc)
  double bandwidth_gbps = 0;
};

// Prints both rooflines; UserError when the trace cannot be read.
void print_l3_term(const PredictL3Input& in);

}  // namespace moesweep::cli
