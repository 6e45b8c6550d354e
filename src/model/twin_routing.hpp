#pragma once
// Routing skew of a twin (issue 11): expert e of every MoE layer is selected
// with a frequency ~ (e+1)^-s, a Zipf-like popularity with exponent s, instead
// of the near-uniform routing of random router weights.
//
// How it is done, per architecture:
// - deepseek2 (DeepSeek-V3, Kimi): the router's per-expert selection bias
//   `exp_probs_b`, which the engine adds to the gate probabilities for the
//   top-k choice only (the mixing weights stay unbiased), as the real models'
//   load balancing does.
// - other archs (qwen3moe, llama4) have no such bias: router row e is scaled
//   by a factor, so expert e's logit has a wider spread and lands in the top k
//   more often. A row scale cannot push an expert beyond about half of the
//   tokens, so a steep skew is approached, not reached (see `modelled`).
// The bias or scales are calibrated against a model of the router's input:
// the twin's router rows have variance 1/hidden and see an RMS-normed hidden
// state, so each logit is ~N(0,1) and independent across experts. The
// calibration is deterministic: the same spec gives the same bytes.
#include <cstdint>
#include <vector>

#include "model/model_profile.hpp"

namespace moesweep {

struct RoutingSkew {
  std::vector<float> bias;       // deepseek2: exp_probs_b per expert; else empty
  std::vector<float> row_scale;  // other archs: router row e times this; else empty
  std::vector<double> target;    // selection frequency per expert asked for (sums to k)
  std::vector<double> modelled;  // what the calibration model reaches with bias/row_scale
};

// The largest exponent accepted (beyond it one expert takes every token).
inline constexpr double kMaxRoutingSkew = 8.0;

// Per-expert selection frequencies f_e = min(1, c (e+1)^-s) with sum k: no
// expert can be chosen by more than every token.
std::vector<double> zipf_selection_targets(int64_t experts, int64_t used, double s);

// The bias (deepseek2) or row scales (other archs) for exponent s > 0.
RoutingSkew calibrate_routing_skew(const ModelProfile& profile, double s);

}  // namespace moesweep
