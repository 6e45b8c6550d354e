#pragma once
// A point's per-token decode times summarised (issue 46): the spread and tail
// of the latency of one generated token, and whether it drifts as the KV
// cache grows within a sample. The sweep writes it into the record's
// extra.token_times; the report and tests recompute it from tokens.jsonl
// with the same function.
//
// Percentiles are linear interpolations between order statistics (R's type
// 7). The slope is the least-squares slope of a token's time against its
// index in its call with an intercept of its own per call (so the drift
// between samples is not mistaken for one within them), its 95% interval
// from Student's t on the pooled residuals.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace moesweep {

struct TokenTimeSummary {
  int64_t tokens = 0;
  int calls = 0;
  double mean_s = 0, p50_s = 0, p90_s = 0, p99_s = 0, max_s = 0;
  bool has_slope = false;  // at least 3 tokens in one call and some spread left
  double slope_s = 0, slope_lo_s = 0, slope_hi_s = 0;  // seconds per position, 95% interval
};

// Each call's token times in nanoseconds (empty calls are left out).
TokenTimeSummary summarize_token_times(const std::vector<std::vector<int64_t>>& calls);
// {"tokens","calls","mean_ms","p50_ms","p90_ms","p99_ms","max_ms","slope_us_per_position",
//  "slope_ci95_us":[lo,hi]} (the slope's fields only when it has one).
nlohmann::json to_json(const TokenTimeSummary& s);

// The q-quantile (0..1) of `sorted` by linear interpolation; 0 when empty.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Two ways of taking one sample side by side, repetition by repetition (a
// pair is one of each): how much faster `a` ran than `b`, as the mean log
// ratio of their speeds, its 95% interval, and what the pairs could have
// seen (the paired t's minimum detectable effect at 90% power), each as a
// fraction (0.01 = a 1% difference).
struct PairedEffect {
  int pairs = 0;
  double effect = 0, lo = 0, hi = 0;  // exp(mean log(a / b)) - 1 and its interval
  double mde = 0;                     // a slowdown fraction; 1 when it could see none
  double p_value = 1;
};
PairedEffect paired_effect(const std::vector<double>& a_speeds,
                           const std::vector<double>& b_speeds);
nlohmann::json to_json(const PairedEffect& e);

}  // namespace moesweep
