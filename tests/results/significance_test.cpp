// The tests against reference values (scipy 1.10: ttest_ind with
// equal_var=False, mannwhitneyu two-sided, ttest_1samp on the log ratios,
// wilcoxon: exact, or method="approx", correction=True with ties or zeros)
// and against their promise: on sample sets from one distribution, p < alpha
// in at most about alpha of cases.
#include <gtest/gtest.h>

#include "results/significance.hpp"
#include "sample_sets.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(Significance, WelchMatchesScipy) {
  auto r = welch_t_test({10.1, 10.3, 9.9, 10.0, 10.2}, {9.1, 9.3, 9.0, 9.4, 9.2});
  EXPECT_NEAR(r.statistic, 9.0, 1e-9);
  EXPECT_NEAR(r.p_value, 1.8531184296430143e-05, 1e-9);
  r = welch_t_test({20.0, 20.5, 19.8}, {18.1, 18.4, 17.9});
  EXPECT_NEAR(r.statistic, 7.747079538723631, 1e-9);
  EXPECT_NEAR(r.p_value, 0.0023374196816142744, 1e-9);
}

TEST(Significance, StudentCdfMatchesScipy) {
  EXPECT_NEAR(student_t_cdf(-2.0, 3.5), 0.06306926128795674, 1e-10);
  EXPECT_NEAR(student_t_cdf(1.3, 10), 0.8886170913965777, 1e-10);
}

TEST(Significance, MannWhitneyExactMatchesScipy) {
  auto r = mann_whitney_u({10.1, 10.3, 9.9, 10.0, 10.2}, {9.1, 9.3, 9.0, 9.4, 9.2});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.statistic, 25);
  EXPECT_NEAR(r.p_value, 0.007936507936507936, 1e-12);
  r = mann_whitney_u({1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5}, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_DOUBLE_EQ(r.statistic, 21);
  EXPECT_NEAR(r.p_value, 0.10110151286621874, 1e-12);
  // 3 against 3 cannot go below p = 0.1: why `auto` does not use it there.
  r = mann_whitney_u({20.0, 20.5, 19.8}, {18.1, 18.4, 17.9});
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);
  EXPECT_EQ(resolve_test_kind(TestKind::kAuto, 3, 3), TestKind::kWelch);
  EXPECT_EQ(resolve_test_kind(TestKind::kAuto, 4, 5), TestKind::kMannWhitney);
}

TEST(Significance, PairedTOnLogRatiosMatchesScipy) {
  // ttest_1samp(log(b / a), 0) for the pairs of the five samples
  const std::vector<double> a = {767, 1019, 884, 993, 950}, b = {700, 1000, 850, 990, 900};
  auto r = run_test(TestKind::kPairedT, a, b);
  EXPECT_NEAR(r.statistic, -2.709641762031957, 1e-9);
  EXPECT_NEAR(r.p_value, 0.05355712672015751, 1e-9);
  EXPECT_DOUBLE_EQ(r.dof, 4);
  r = run_test(TestKind::kPairedT, {10.1, 10.3, 9.9, 10.0, 10.2, 10.4},
               {9.6, 9.9, 9.5, 9.7, 9.9, 10.0});
  EXPECT_NEAR(r.statistic, -12.197198939221686, 1e-8);
  EXPECT_NEAR(r.p_value, 6.549740469708066e-05, 1e-10);
  EXPECT_EQ(paired_t_test({0.01, 0.01, 0.01}).p_value, 0);  // a constant non-zero difference
  EXPECT_EQ(paired_t_test({0, 0, 0}).p_value, 1);
}

TEST(Significance, SignedRankMatchesScipy) {
  // exact: 5 pairs cannot go below p = 2/2^5 = 0.0625
  auto r = run_test(TestKind::kSignedRank, {767, 1019, 884, 993, 950}, {700, 1000, 850, 990, 900});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.statistic, 0);
  EXPECT_NEAR(r.p_value, 0.0625, 1e-12);
  r = signed_rank_test({0.1, -0.3, 0.2, 0.5, 0.45, 0.7, 0.9, -0.05, 0.33, 0.21, 0.6, 0.8});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.statistic, 6);
  EXPECT_NEAR(r.p_value, 0.0068359375, 1e-12);
  // ties: the normal approximation with tie and continuity correction
  r = signed_rank_test({1, 2, 2, 3, -1, 4, 5, 5, -2, 6});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.statistic, 5.5);
  EXPECT_NEAR(r.p_value, 0.027801830120072507, 1e-9);
  r = signed_rank_test({0.05, -0.02, 0.03, 0.08, 0.01, 0.04, -0.01, 0.06});
  EXPECT_NEAR(r.p_value, 0.06836413860052828, 1e-9);
  // a zero difference is left out (zero_method "wilcox")
  r = signed_rank_test({0.0, 0.1, 0.2, -0.05, 0.3, 0.15, 0.25});
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.05917206782585941, 1e-9);
}

TEST(Significance, AutoPairsWhereThereArePairsAndNoRankTestThatCannotReachAlpha) {
  EXPECT_EQ(resolve_test_kind(TestKind::kAuto, 5, 5, true), TestKind::kPairedT);
  EXPECT_EQ(resolve_test_kind(TestKind::kSignedRank, 5, 5, true), TestKind::kSignedRank);
  // a paired test asked for on samples that are not pairs: auto's unpaired one
  EXPECT_EQ(resolve_test_kind(TestKind::kPairedT, 5, 5, false), TestKind::kMannWhitney);
  // 5 against 5: Mann-Whitney's smallest p is 2/252 = 0.0079, under 0.05 / 6 but not 0.05 / 12
  EXPECT_EQ(resolve_test_kind(TestKind::kAuto, 5, 5, false, 0.05 / 6), TestKind::kMannWhitney);
  EXPECT_EQ(resolve_test_kind(TestKind::kAuto, 5, 5, false, 0.05 / 12), TestKind::kWelch);
  EXPECT_EQ(parse_test_kind("paired-t"), TestKind::kPairedT);
  EXPECT_EQ(parse_test_kind("wilcoxon"), TestKind::kSignedRank);
  EXPECT_THROW(parse_test_kind("ttest"), UserError);
}

TEST(Significance, MannWhitneyWithTiesMatchesScipyAsymptotic) {
  auto r = mann_whitney_u({1, 2, 2, 3, 4, 5, 5, 6}, {3, 4, 4, 5, 6, 7, 8, 9});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.statistic, 14);
  EXPECT_NEAR(r.p_value, 0.06389446669669765, 1e-9);
}

// 4000 pairs of sample sets from the same distribution: the share of p < alpha
// must not exceed alpha beyond binomial noise (sd 0.0034 at 4000 trials).
void expect_calibrated(TestKind kind, int n) {
  const double alpha = 0.05;
  int rejected = 0;
  const int trials = 4000;
  for (int seed = 0; seed < trials; ++seed) {
    auto a = test::normal_samples(2 * seed + 1, n, 100, 3);
    auto b = test::normal_samples(2 * seed + 2, n, 100, 3);
    rejected += run_test(kind, a, b).p_value < alpha;
  }
  const double rate = static_cast<double>(rejected) / trials;
  EXPECT_LE(rate, alpha + 0.011) << test_kind_name(kind) << " n=" << n;
  EXPECT_GT(rate, 0.0) << "a test that never rejects is not a test";
}

TEST(Significance, FalsePositiveRateStaysUnderAlpha) {
  expect_calibrated(TestKind::kWelch, 3);
  expect_calibrated(TestKind::kWelch, 10);
  expect_calibrated(TestKind::kMannWhitney, 5);
  expect_calibrated(TestKind::kMannWhitney, 30);  // normal approximation
  expect_calibrated(TestKind::kPairedT, 3);
  expect_calibrated(TestKind::kPairedT, 10);
  expect_calibrated(TestKind::kSignedRank, 10);
  expect_calibrated(TestKind::kSignedRank, 60);  // normal approximation
}

}  // namespace
}  // namespace moesweep
