// Which test compare runs on the pairs of one run's engines, chosen by
// measurement: every test on the same simulated data (seeded, so nothing
// flakes), its false-alarm rate with no effect and its power against a 5%
// slowdown. The noise model is the gate's: each pair of repetitions (one per
// engine, side by side in time) shares a slow swing of the machine, and each
// sample has its own fast noise on top. With a swing, pairing cancels it and
// the paired t test is far more powerful than the unpaired ones; without one,
// it loses little (fewer degrees of freedom). Every test keeps its false
// alarms at alpha either way. So auto takes the paired t on pairs (the signed
// rank cannot go below p = 0.0625 at 5 pairs, ci-ab's repetitions).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "results/significance.hpp"
#include "sample_sets.hpp"

namespace moesweep {
namespace {

struct Rates {
  std::map<TestKind, double> alarms, power;
};

constexpr TestKind kTests[] = {TestKind::kPairedT, TestKind::kSignedRank, TestKind::kWelch,
                               TestKind::kMannWhitney};

// `tries` simulated A/B runs of `n` pairs: log speed = side + swing_i + noise.
Rates simulate(double swing_sd, double noise_sd, int n, int tries, uint64_t seed) {
  Rates r;
  const double alpha = 0.05, slowdown = -std::log(0.95);
  for (int t = 0; t < tries; ++t) {
    const uint64_t s = seed + 10 * static_cast<uint64_t>(t);
    const auto swing = test::normal_samples(s, n, 0, swing_sd);
    const auto noise_a = test::normal_samples(s + 1, n, 0, noise_sd);
    const auto noise_b = test::normal_samples(s + 2, n, 0, noise_sd);
    const auto noise_c = test::normal_samples(s + 3, n, 0, noise_sd);
    std::vector<double> a, same, slow;
    for (int i = 0; i < n; ++i) {
      a.push_back(100 * std::exp(swing[i] + noise_a[i]));
      same.push_back(100 * std::exp(swing[i] + noise_b[i]));
      slow.push_back(100 * std::exp(swing[i] + noise_c[i] - slowdown));
    }
    for (TestKind k : kTests) {
      r.alarms[k] += run_test(k, a, same).p_value < alpha;
      r.power[k] += run_test(k, a, slow).p_value < alpha;
    }
  }
  for (TestKind k : kTests) {
    r.alarms[k] /= tries;
    r.power[k] /= tries;
    std::cout << "swing sd " << swing_sd << ", noise sd " << noise_sd << ", " << n
              << " pairs: " << test_kind_name(k) << " false alarms " << r.alarms[k]
              << ", power at 5% " << r.power[k] << "\n";
  }
  return r;
}

void expect_alarms_within_alpha(const Rates& r, int tries) {
  for (TestKind k : kTests)
    EXPECT_LE(r.alarms.at(k), 0.05 + 3 * std::sqrt(0.05 * 0.95 / tries)) << test_kind_name(k);
}

TEST(TestChoice, WithASharedSwingPairingWins) {
  const int tries = 2000;
  const Rates r = simulate(0.08, 0.04, 10, tries, 11);
  expect_alarms_within_alpha(r, tries);
  EXPECT_GT(r.power.at(TestKind::kPairedT), r.power.at(TestKind::kWelch) + 0.25);
  EXPECT_GT(r.power.at(TestKind::kPairedT), r.power.at(TestKind::kMannWhitney) + 0.25);
  EXPECT_GE(r.power.at(TestKind::kPairedT), r.power.at(TestKind::kSignedRank) - 0.02);
}

TEST(TestChoice, WithoutASwingPairingLosesLittle) {
  const int tries = 2000;
  const Rates r = simulate(0.0, 0.04, 10, tries, 50011);
  expect_alarms_within_alpha(r, tries);
  EXPECT_GE(r.power.at(TestKind::kPairedT), 0.85 * r.power.at(TestKind::kWelch));
  EXPECT_GE(r.power.at(TestKind::kPairedT), r.power.at(TestKind::kSignedRank) - 0.02);
}

TEST(TestChoice, AutoTakesThePairedTOnPairs) {
  EXPECT_EQ(resolve_test_kind(TestKind::kAuto, 5, 5, true), TestKind::kPairedT);
  EXPECT_EQ(resolve_test_kind(TestKind::kAuto, 20, 20, true), TestKind::kPairedT);
}

}  // namespace
}  // namespace moesweep
