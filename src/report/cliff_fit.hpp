#pragma once
// Where, and how far, decode speed falls when the experts stop fitting in
// the cache: a logistic step of S_TG against log(pool bytes),
//   S(x) = lo + (hi - lo) / (1 + exp((ln x - ln x0) / w)),
// fitted by least squares to every timed sample (a grid over x0 and w, hi and
// lo solved exactly for each), with 95% confidence intervals from a bootstrap
// that resamples the samples within each pool size. A small w is a step.
// Pure statistics, unit-tested on synthetic curves.
#include <cstdint>
#include <optional>
#include <vector>

namespace moesweep {

struct CliffSample {
  double x = 0;  // pool bytes (routed experts of every MoE layer)
  double y = 0;  // S_TG of one repetition
};

struct CliffCurve {
  double x0 = 0;          // position: the pool size halfway down the step
  double width = 0;       // ln-units of pool size the step takes (about +-2 w: 76% of it)
  double hi = 0, lo = 0;  // S_TG before (in cache) and after (out of cache)
  double sse = 0;
  double at(double x) const;
};

// Least squares over the grid; samples need >= 2 distinct x.
CliffCurve fit_cliff(const std::vector<CliffSample>& samples);

struct Interval {
  double value = 0, lo = 0, hi = 0;  // the estimate and its 95% bootstrap interval
  bool excludes(double v) const { return v < lo || v > hi; }
};

struct CliffResult {
  CliffCurve fit;
  Interval position;  // bytes
  Interval drop;      // 1 - lo/hi: the share of speed lost past the cliff
  Interval ratio;     // hi/lo
  // A cliff is resolved when the drop's interval excludes 0 and the position
  // lies inside the measured span, with points on both sides.
  bool resolved = false;
  int bootstrap = 0;
  // The dense reference against the MoE's plateaus: dense S_TG / hi and / lo.
  std::optional<Interval> dense_over_in_cache, dense_over_out_of_cache;
};

// `dense` (samples of a dense twin of the same active bytes) may be empty.
CliffResult analyse_cliff(const std::vector<CliffSample>& samples, const std::vector<double>& dense,
                          int bootstrap = 1000, uint64_t seed = 1);

}  // namespace moesweep
