// The per-token cache fit (issue 46) on synthetic data whose cache size and
// slope are known, on data with no cache effect, and on routing that leaves
// nothing to explain; the planted routings of the miss model (every token the
// same experts: no misses after the first; no expert ever again: misses on
// every token).
#include <gtest/gtest.h>

#include <random>

#include "analysis/hand_trace.hpp"
#include "analysis/token_cache_fit.hpp"
#include "analysis/token_miss_model.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using test::MiB;

// `calls` calls of `n` tokens; each token reads 8 blocks of 256 KiB whose
// reuse distances are log-uniform from 0.5 to 64 MiB, so its miss bytes fall
// with S. Its time: the call's intercept, 2 us per position, `slope` seconds
// per byte missed at `true_bytes` (0: none), and Gaussian noise of 20 us.
CacheFitData synthetic(uint64_t true_bytes, double slope, int calls, int n, uint64_t seed) {
  CacheFitData d;
  d.sizes = log_spaced_sizes(MiB, 256 * MiB, 2);
  d.miss.assign(d.sizes.size(), {});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_d(std::log(0.5 * MiB), std::log(64.0 * MiB));
  std::normal_distribution<double> noise(0, 20e-6);
  for (int c = 0; c < calls; ++c) {
    const double intercept = 1e-3 * (1 + 0.1 * c);
    for (int i = 0; i < n; ++i) {
      std::vector<double> dist(8);
      for (double& x : dist) x = std::exp(log_d(rng));
      double at_true = 0;
      for (size_t k = 0; k < d.sizes.size(); ++k) {
        double m = 0;
        for (double x : dist) m += x > static_cast<double>(d.sizes[k]) ? 256 * 1024 : 0;
        d.miss[k].push_back(m);
      }
      for (double x : dist) at_true += x > static_cast<double>(true_bytes) ? 256 * 1024 : 0;
      d.call.push_back(c);
      d.position.push_back(i);
      d.y.push_back(intercept + 2e-6 * i + slope * at_true + noise(rng));
    }
  }
  return d;
}

TEST(TokenCacheFit, RecoversAKnownCacheSizeAndSlope) {
  const double slope = 1.0 / 20e9;  // misses read at 20 GB/s
  const CacheFit f = fit_cache_size(synthetic(8 * MiB, slope, 12, 64, 1), 199);
  ASSERT_GE(f.best, 0);
  EXPECT_EQ(f.sizes[f.best].bytes, 8 * MiB);
  EXPECT_LE(f.lo_bytes, 8 * MiB);  // the profile interval
  EXPECT_GE(f.hi_bytes, 8 * MiB);
  EXPECT_LE(f.boot_lo_bytes, 8 * MiB);  // the cluster bootstrap's
  EXPECT_GE(f.boot_hi_bytes, 8 * MiB);
  EXPECT_LT(f.slope_lo, slope);
  EXPECT_GT(f.slope_hi, slope);
  EXPECT_LT(f.p_value, 0.05);
  const std::string v = cache_fit_verdict(f, "s");
  EXPECT_EQ(v.rfind("S ", 0), 0u) << v;
  EXPECT_NE(v.find("8 MiB"), std::string::npos) << v;
  EXPECT_NE(v.find("GB/s"), std::string::npos) << v;
}

TEST(TokenCacheFit, NoCacheEffectIsNoEvidence) {
  const CacheFit f = fit_cache_size(synthetic(8 * MiB, 0, 12, 64, 2), 199);
  ASSERT_GE(f.best, 0);
  EXPECT_GE(f.p_value, 0.05);
  EXPECT_NE(cache_fit_verdict(f, "s").find("no evidence"), std::string::npos);
}

TEST(TokenCacheFit, MissesThatDoNotVaryWithinACallCannotBeFitted) {
  CacheFitData d = synthetic(8 * MiB, 0, 4, 16, 3);
  for (auto& m : d.miss)
    for (size_t i = 0; i < m.size(); ++i) m[i] = 1e6 * (1 + d.call[i]);  // constant per call
  const CacheFit f = fit_cache_size(d, 99);
  EXPECT_EQ(f.best, -1);
  EXPECT_NE(cache_fit_verdict(f, "s").find("no size could be fitted"), std::string::npos);
}

TEST(TokenCacheFit, InterruptedTokensAreLeftOut) {
  CacheFitData d = synthetic(8 * MiB, 0, 2, 10, 4);
  d.y[3] *= 10;  // preempted
  EXPECT_EQ(drop_interrupted(d, 3), 1u);
  EXPECT_EQ(d.y.size(), 19u);
  for (const auto& m : d.miss) EXPECT_EQ(m.size(), 19u);
  EXPECT_EQ(drop_interrupted(d, 0), 0u);  // 0 keeps every token
}

TEST(TokenCacheFit, TheGridIsLogSpacedFromOneMiBToOneGiB) {
  const auto s = log_spaced_sizes(MiB, 1024 * MiB, 4);
  ASSERT_EQ(s.size(), 41u);
  EXPECT_EQ(s.front(), MiB);
  EXPECT_EQ(s.back(), 1024 * MiB);
  EXPECT_EQ(s[4], 2 * MiB);
}

// A trace of a timed call's traced pass: layer 1 of 2, 4 experts of 1 MiB, 1
// used; the call ran untraced at `at` and is spliced in there.
TEST(TokenMissModel, EveryTokenTheSameExpertMissesOnlyOnTheFirst) {
  RoutingTrace t = test::one_expert_per_token({2, 2, 2, 2, 2, 2});  // the pass
  t.model.hot_bytes = 0;
  const std::vector<uint64_t> sizes = {MiB / 2, MiB, 64 * MiB};
  // The timed call ran before its pass (step 0), its 6 tokens the pass's.
  const auto miss = spliced_miss_bytes(t, {{0, 0, 6}}, sizes, "test");
  for (size_t k = 0; k < sizes.size(); ++k) {
    ASSERT_EQ(miss[k].size(), 6u);
    EXPECT_EQ(miss[k][0], MiB) << k;  // first read: cold at every size
    for (size_t i = 1; i < 6; ++i)
      EXPECT_EQ(miss[k][i], sizes[k] >= MiB ? 0.0 : static_cast<double>(MiB)) << k << " " << i;
  }
  // After the pass (step 6) the call finds its expert in any cache that holds it.
  const auto after = spliced_miss_bytes(t, {{6, 0, 6}}, sizes, "test");
  EXPECT_EQ(after[1][0], 0.0);
}

TEST(TokenMissModel, NoExpertTwiceMissesOnEveryToken) {
  RoutingTrace t = test::random_trace(64, MiB, 0, 1, 1);
  for (int32_t e = 0; e < 8; ++e) t.add(TracePhase::kGeneration, 0, 1, 1, &e);  // 0..7, once each
  const auto miss = spliced_miss_bytes(t, {{0, 0, 8}}, {MiB, 1024 * MiB}, "test");
  for (const auto& at_size : miss)
    for (double m : at_size) EXPECT_EQ(m, static_cast<double>(MiB));
}

TEST(TokenMissModel, APassTheTraceDoesNotHoldIsRefused) {
  const RoutingTrace t = test::one_expert_per_token({0, 1});
  EXPECT_THROW(spliced_miss_bytes(t, {{0, 0, 3}}, {MiB}, "test"), UserError);   // 2 tokens only
  EXPECT_THROW(spliced_miss_bytes(t, {{9, 0, 1}}, {MiB}, "test"), UserError);   // past the end
  EXPECT_THROW(spliced_miss_bytes(t, {{0, -1, 1}}, {MiB}, "test"), UserError);  // before it
}

}  // namespace
}  // namespace moesweep
