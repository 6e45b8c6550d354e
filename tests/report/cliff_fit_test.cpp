// The cliff fit on curves whose answer is known: a clean step is found where
// it is with its height; noise widens the intervals but they still cover the
// truth; a flat curve has a drop interval that includes 0.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "report/cliff_fit.hpp"

namespace moesweep {
namespace {

std::vector<CliffSample> step(double hi, double lo, double at, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0, noise);
  std::vector<CliffSample> out;
  for (double x = 1; x <= 32; x *= std::sqrt(2.0))
    for (int i = 0; i < 6; ++i) out.push_back({x, (x < at ? hi : lo) * (1 + n(rng))});
  return out;
}

TEST(CliffFit, ACleanStepIsFoundBetweenItsNeighbours) {
  const CliffCurve k = fit_cliff(step(100, 50, 5, 0, 1));
  EXPECT_NEAR(k.hi, 100, 1e-6);
  EXPECT_NEAR(k.lo, 50, 1e-6);
  EXPECT_GT(k.x0, 4.0);  // between the points 4 and 5.66
  EXPECT_LT(k.x0, 5.66);
  EXPECT_LT(k.sse, 1e-6);
}

TEST(CliffFit, TheBootstrapIntervalsCoverTheTruthUnderNoise) {
  const CliffResult r = analyse_cliff(step(100, 60, 5, 0.05, 2), {}, 400, 3);
  EXPECT_TRUE(r.resolved);
  EXPECT_LE(r.position.lo, 5.66);
  EXPECT_GE(r.position.hi, 4.0);
  EXPECT_LT(r.position.lo, r.position.hi);
  EXPECT_FALSE(r.drop.excludes(0.4));
  EXPECT_GT(r.drop.lo, 0.2);
  EXPECT_FALSE(r.ratio.excludes(100.0 / 60));
}

TEST(CliffFit, AFlatCurveIsNoResolvedCliff) {
  const CliffResult r = analyse_cliff(step(80, 80, 5, 0.05, 4), {}, 400, 5);
  EXPECT_FALSE(r.resolved);
  EXPECT_FALSE(r.drop.excludes(0.0)) << r.drop.lo << " " << r.drop.hi;
}

TEST(CliffFit, TheDenseTwinAgainstBothPlateausWithIntervals) {
  std::vector<double> dense(15, 70.0);
  const CliffResult r = analyse_cliff(step(100, 50, 5, 0.02, 6), dense, 300, 7);
  ASSERT_TRUE(r.dense_over_in_cache && r.dense_over_out_of_cache);
  EXPECT_NEAR(r.dense_over_in_cache->value, 0.7, 0.02);
  EXPECT_NEAR(r.dense_over_out_of_cache->value, 1.4, 0.04);
  for (const Interval& i : {*r.dense_over_in_cache, *r.dense_over_out_of_cache}) {
    EXPECT_LE(i.lo, i.value);
    EXPECT_GE(i.hi, i.value);
  }
  EXPECT_TRUE(r.dense_over_out_of_cache->excludes(1.0));  // the dense twin is clearly faster
}

}  // namespace
}  // namespace moesweep
