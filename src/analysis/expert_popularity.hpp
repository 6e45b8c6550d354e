#pragma once
// How unevenly a router spreads tokens over experts, per MoE layer: entropy
// (1.0 normalised = uniform), Gini (0 = uniform, (n-1)/n = one expert takes
// all), the share of the top 10% of experts, and the realised Zipf exponent
// to set beside a twin's requested one: a maximum-likelihood fit of
// P(rank r) ~ r^-s over the experts below the per-token cap (an expert is
// chosen at most once per token, so the most popular ones saturate and bend
// a least-squares line; a least-squares slope over sorted counts also reads
// 0.6-1.1 on uniform routing, the MLE far less).
#include <cstdint>
#include <vector>

namespace moesweep {

struct RoutingTrace;

// Experts chosen by at least this share of a layer's tokens are at the cap.
inline constexpr double kZipfCapShare = 0.9;

struct Popularity {
  int layer = -1;
  uint64_t selections = 0;        // token-expert selections counted
  uint64_t tokens = 0;            // tokens routed (the cap: an expert's count <= tokens)
  std::vector<uint64_t> counts;   // per expert
  double entropy_bits = 0;        // -sum p log2 p
  double entropy_normalised = 0;  // entropy / log2(n_expert)
  double gini = 0;
  double top10_share = 0;       // selections of the ceil(10%) most used experts
  double zipf_s = 0;            // MLE over the observed rank order, experts below the cap
  double zipf_s_by_id = 0;      // MLE with rank = expert id + 1 (a twin's requested order)
  double rank_id_spearman = 0;  // rank correlation of expert id and popularity (1: id order)
  int experts_capped = 0;       // left out of the fits
};

// The statistics of one count vector (pure; `layer` left at -1). `tokens`
// = 0 means no cap is known (every expert enters the fits).
Popularity popularity_of(const std::vector<uint64_t>& counts, uint64_t tokens = 0);
// One entry per layer that has any routing in the trace (both phases).
std::vector<Popularity> layer_popularity(const RoutingTrace& trace);
// The mean of the layers' statistics (counts left empty, selections summed).
Popularity overall_popularity(const std::vector<Popularity>& layers);
// The Zipf exponent maximising the likelihood of `counts` at `ranks` (ranks
// >= 1, the fitted support is exactly these ranks); 0 for fewer than 2.
double zipf_mle(const std::vector<uint64_t>& counts, const std::vector<double>& ranks);

}  // namespace moesweep
