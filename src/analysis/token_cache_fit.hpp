#pragma once
// Which cache, if any, explains each token's decode time (issue 46, `moesweep
// l3 RUN --per-token`). For every cache size S of a grid, the time of token i
// is fitted as
//     y_i = a_g(i) + b * position_i + c * miss_i(S) + e_i
// with an intercept per call g (a TG sample's call: it absorbs the depth, the
// thread count, the model and any drift between samples), the token's
// position within its call, and miss_i(S), the bytes of weights token i reads
// that a byte-LRU of S bytes would not hold (analysis/token_miss_model.hpp).
// Least squares throughout (the intercepts by demeaning within each call).
//  - The best S maximises the Gaussian profile likelihood (least residual
//    sum of squares); its 95% profile interval is every S of the grid whose
//    likelihood ratio against the best is within chi2(1, 0.95) = 3.84. That
//    calibration assumes independent Gaussian errors; token times are
//    heavy-tailed and correlated within a call, so the interval the verdict
//    gives is the cluster bootstrap's: the calls resampled with replacement,
//    the best S refitted, its 2.5 and 97.5 percentiles.
//  - The slope c at the best S (seconds per byte missed), with a 95%
//    interval from cluster-robust standard errors (clusters: the calls;
//    Student t with calls - 1 degrees of freedom), and its inverse, the
//    effective bandwidth of the misses.
//  - Whether any S beats the model without a cache term: the sup over S of
//    the likelihood ratio, LR = n log(RSS_0 / RSS(S)), whose null
//    distribution is not chi2 (S exists only under the alternative), so its
//    p-value comes from a wild cluster bootstrap under the null (residuals
//    of the no-cache fit, each call's flipped by one Rademacher sign).
// A size whose predicted misses do not vary within calls (every token misses
// alike) cannot be fitted and is left out; when none can, the answer is that
// the routing gives the time nothing to explain.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace moesweep {

struct CacheFitData {
  std::vector<int> call;                  // each token's call (0-based, any order)
  std::vector<double> position;           // each token's position within its call
  std::vector<double> y;                  // each token's time (or simulated cost)
  std::vector<uint64_t> sizes;            // the grid of S, ascending
  std::vector<std::vector<double>> miss;  // [size][token]: predicted miss bytes
};

struct CacheFitSize {
  uint64_t bytes = 0;
  bool fitted = false;  // its misses vary within calls
  double rss = 0;
  double slope = 0;  // y per byte missed
  double lr = 0;     // n log(RSS_0 / RSS)
};

struct CacheFit {
  size_t tokens = 0, calls = 0;
  double rss0 = 0;                                // no cache term
  double position_slope0 = 0;                     // y per position, no cache term
  std::vector<CacheFitSize> sizes;                // the grid
  int best = -1;                                  // index into sizes; -1: no size could be fitted
  uint64_t lo_bytes = 0, hi_bytes = 0;            // the profile interval's smallest and largest S
  uint64_t boot_lo_bytes = 0, boot_hi_bytes = 0;  // the cluster bootstrap's 95% interval of S
  bool interval_at_edge_lo = false,
       interval_at_edge_hi = false;              // the verdict's reaches the grid's end
  double slope = 0, slope_lo = 0, slope_hi = 0;  // at the best S, 95% (cluster-robust)
  double lr = 0, p_value = 1;
  int bootstrap = 0;
  std::string verdict;  // one sentence
};

// Leaves out the tokens whose y is more than `factor` times their call's
// median (a token the machine interrupted: on a shared host a preempted token
// takes 10-20x the median, and least squares would fit those alone); the
// number left out. No cache term moves a token by more than the ratio of
// the kernel's in-cache to out-of-cache speed (about 2x here, docs/l3.md), so
// 3x keeps every token a cache could have slowed.
size_t drop_interrupted(CacheFitData& d, double factor);

// `bootstrap` resamples for the p-value (0: none, p stays 1); `seed` fixes them.
CacheFit fit_cache_size(const CacheFitData& d, int bootstrap = 999, uint64_t seed = 46);
// `unit`: what y is ("s" or "B"), for the verdict's words.
std::string cache_fit_verdict(const CacheFit& f, const std::string& unit);
nlohmann::json to_json(const CacheFit& f);

// Log-spaced sizes from `lo` to `hi` bytes, `per_doubling` a doubling.
std::vector<uint64_t> log_spaced_sizes(uint64_t lo, uint64_t hi, int per_doubling);

}  // namespace moesweep
