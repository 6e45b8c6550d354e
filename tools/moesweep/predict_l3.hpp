#pragma once
// `predict --trace FILE`: the decode roofline with and without the L3 term
// (analysis/l3_term.hpp). The trace's read stream, hot set included, is given
// the predicted model's sizes and simulated at the hardware's L3 exactly: one
// shared byte-LRU, and the band of cache models over the hardware's L3
// domains with ggml's row schedule at its core count.
#include <string>

namespace moesweep::cli {

struct PredictL3Input {
  std::string trace;          // routing.trace.zst or its directory
  std::string model_profile;  // profiles/models name: where routed and hot bytes come from
  std::string quant;          // the predicted quant (its expert type sets ggml's row schedule)
  double bytes_per_weight = 0;
  double kv_bytes = 0;  // per token at the depth predicted (streamed, never cached)
  double l3_bytes = 0;  // the hardware's L3 (0: this machine's, from hwloc)
  int cores = 0;        // the hardware's cores = decode threads (0: one shared cache)
  int l3_domains = 1;
  double bandwidth_gbps = 0;
};

// Prints the rooflines; UserError when the trace cannot be read.
void print_l3_term(const PredictL3Input& in);

// The ggml type name of a quant's routed experts ("Q4_K_S" -> "q4_K", "Q8_0" -> "q8_0").
std::string expert_type_of_quant(const std::string& quant);

}  // namespace moesweep::cli
