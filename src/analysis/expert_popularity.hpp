#pragma once
// How unevenly a router spreads tokens over experts, per MoE layer: entropy
// (1.0 normalised = uniform), Gini (0 = uniform, (n-1)/n = one expert takes
// all), the share of the top 10% of experts, and a Zipf exponent fitted to the
// ranked counts (the "realised skew" to set beside a twin's requested one).
#include <cstdint>
#include <vector>

namespace moesweep {

struct RoutingTrace;

struct Popularity {
  int layer = -1;
  uint64_t selections = 0;        // token-expert selections counted
  std::vector<uint64_t> counts;   // per expert
  double entropy_bits = 0;        // -sum p log2 p
  double entropy_normalised = 0;  // entropy / log2(n_expert)
  double gini = 0;
  double top10_share = 0;  // selections of the ceil(10%) most used experts
  double zipf_s = 0;       // -slope of log(count) over log(rank), used experts only
};

// The statistics of one count vector (pure; `layer` left at -1).
Popularity popularity_of(const std::vector<uint64_t>& counts);
// One entry per layer that has any routing in the trace (both phases).
std::vector<Popularity> layer_popularity(const RoutingTrace& trace);
// The mean of the layers' statistics (counts left empty, selections summed).
Popularity overall_popularity(const std::vector<Popularity>& layers);

}  // namespace moesweep
