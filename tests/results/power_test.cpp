// The minimum detectable effect against reference values (scipy 1.10:
// stats.t.ppf, stats.nct for the power of the two-sided t test, brentq for
// the noncentrality at 90% power), against a case worked by hand, and against
// its promise on simulated samples (seeded): with the true effect at the MDE
// the test rejects in about 90% of tries, with none in at most alpha.
#include <gtest/gtest.h>

#include <cmath>

#include "results/power.hpp"
#include "results/significance.hpp"
#include "results/stats.hpp"
#include "sample_sets.hpp"

namespace moesweep {
namespace {

TEST(Power, StudentQuantileMatchesScipy) {
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.7764451051977987, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.9, 4), 1.533206273713144, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736432095, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.99583333, 4), 4.8510073383992385, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.975, 1000), 1.9623390808264074, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.025, 4), -2.7764451051977987, 1e-8);
}

TEST(Power, TwoSidedTPowerMatchesScipyNoncentralT) {
  EXPECT_NEAR(t_test_power(3.0, 4, 0.05), 0.6192614594023295, 1e-6);
  EXPECT_NEAR(t_test_power(2.0, 10, 0.05), 0.4396273011321012, 1e-6);
  EXPECT_NEAR(t_test_power(4.0, 7, 0.01), 0.6810039476459637, 1e-6);
  EXPECT_NEAR(t_test_power(0.0, 7, 0.05), 0.05, 1e-6);  // no effect: the false-alarm rate
}

TEST(Power, MdeFactorMatchesScipyNoncentralT) {
  // (dof, alpha) -> noncentrality at 90% power
  EXPECT_NEAR(mde_factor(4, 0.05), 4.39586104579014, 1e-6);
  EXPECT_NEAR(mde_factor(8, 0.05), 3.7124366967816553, 1e-6);
  EXPECT_NEAR(mde_factor(19, 0.05), 3.4187596704125363, 1e-6);
  EXPECT_NEAR(mde_factor(4, 0.05 / 6), 7.09743340352672, 1e-5);  // Holm over 6 tests
  EXPECT_NEAR(mde_factor(1, 0.05), 20.964473420521912, 1e-4);
  EXPECT_NEAR(mde_factor(100, 0.05), 3.2731075210600493, 1e-6);
  EXPECT_NEAR(mde_factor(29, 0.01), 4.095542536967216, 1e-6);
  EXPECT_TRUE(std::isinf(mde_factor(0.5, 0.05)));
}

// By hand: 5 pairs whose log ratios spread by sd 0.10. se = 0.1 / sqrt 5 =
// 0.044721; at 4 dof the factor is 4.395861, so the MDE is 0.196589 in log
// ratio: a slowdown of 1 - exp(-0.196589) = 17.85%.
TEST(Power, PairedMdeWorkedByHand) {
  const CellSpread spread{0.1 / std::sqrt(5.0), 4, 5, 5};
  const double mde = cell_mde(TestKind::kPairedT, spread, 0.05);
  EXPECT_NEAR(mde, 0.196589, 1e-5);
  EXPECT_NEAR(mde_slowdown(mde), 0.178467, 1e-5);
  EXPECT_NEAR(log_effect_of_slowdown(0.05), 0.051293, 1e-6);
  EXPECT_NEAR(mde_slowdown(log_effect_of_slowdown(0.05)), 0.05, 1e-12);
  // Twice the pairs, the same spread: the MDE shrinks by more than sqrt 2 (more dof).
  const double mde10 = cell_mde(TestKind::kPairedT, {0.1 / std::sqrt(10.0), 9, 10, 10}, 0.05);
  EXPECT_LT(mde10, mde / std::sqrt(2.0));
}

TEST(Power, RankTestsThatCannotReachAlphaDetectNothing) {
  EXPECT_NEAR(smallest_p(TestKind::kMannWhitney, 3, 3), 0.1, 1e-12);
  EXPECT_NEAR(smallest_p(TestKind::kSignedRank, 5, 5), 0.0625, 1e-12);
  EXPECT_NEAR(smallest_p(TestKind::kSignedRank, 6, 6), 0.03125, 1e-12);
  EXPECT_EQ(smallest_p(TestKind::kPairedT, 2, 2), 0);
  const CellSpread spread{0.02, 4, 5, 5};
  EXPECT_TRUE(std::isinf(cell_mde(TestKind::kSignedRank, spread, 0.05)));
  EXPECT_TRUE(std::isinf(cell_mde(TestKind::kMannWhitney, {0.02, 4, 3, 3}, 0.05)));
  // Where it can, a rank test needs sqrt(pi/3) times the t test's effect.
  const double t = cell_mde(TestKind::kPairedT, {0.02, 9, 10, 10}, 0.05);
  EXPECT_NEAR(cell_mde(TestKind::kSignedRank, {0.02, 9, 10, 10}, 0.05) / t, std::sqrt(M_PI / 3),
              1e-12);
}

// Simulated pairs with the true mean log ratio at the MDE computed from the
// true spread: the paired t test rejects in 90% of tries (theory, noncentral
// t), within 3 binomial sd; with no effect in at most alpha.
TEST(Power, SimulatedPairsRejectAtTheMdeAsTheoryPredicts) {
  const int n = 8, tries = 4000;
  const double sd = 0.08, alpha = 0.05;
  const double effect = mde_factor(n - 1, alpha) * sd / std::sqrt(static_cast<double>(n));
  int hits = 0, alarms = 0;
  for (int seed = 0; seed < tries; ++seed) {
    hits += paired_t_test(test::normal_samples(7000 + seed, n, -effect, sd)).p_value < alpha;
    alarms += paired_t_test(test::normal_samples(90000 + seed, n, 0, sd)).p_value < alpha;
  }
  const double power = static_cast<double>(hits) / tries;
  EXPECT_NEAR(power, kMdePower, 3 * std::sqrt(0.9 * 0.1 / tries)) << hits << " of " << tries;
  EXPECT_LE(static_cast<double>(alarms) / tries, alpha + 3 * std::sqrt(alpha * 0.95 / tries));
  EXPECT_GT(alarms, 0) << "a test that never rejects is not a test";
}

// The same for two unpaired sample sets (Welch on the speeds, the MDE from the
// delta method on the log of the ratio of means): close to 90% (the speeds'
// ratio is not exactly normal, hence the wider margin).
TEST(Power, SimulatedUnpairedSamplesRejectAtTheMdeNearTheory) {
  const int n = 10, tries = 3000;
  const double cv = 0.05, alpha = 0.05;
  const double se = cv * std::sqrt(2.0 / n);
  const double effect = cell_mde(TestKind::kWelch, {se, 2.0 * (n - 1), 10, 10}, alpha);
  int hits = 0;
  for (int seed = 0; seed < tries; ++seed) {
    const auto base = test::normal_samples(500000 + seed, n, 100, 100 * cv);
    const double slow = 100 * std::exp(-effect);
    const auto fresh = test::normal_samples(800000 + seed, n, slow, slow * cv);
    hits += welch_t_test(base, fresh).p_value < alpha;
  }
  EXPECT_NEAR(static_cast<double>(hits) / tries, kMdePower, 0.03) << hits << " of " << tries;
}

}  // namespace
}  // namespace moesweep
