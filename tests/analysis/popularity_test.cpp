// Entropy, Gini, top-10% share and the Zipf fit on distributions with known values.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/expert_popularity.hpp"
#include "analysis/hand_trace.hpp"

namespace moesweep {
namespace {

TEST(Popularity, UniformCountsHaveFullEntropyAndZeroGini) {
  const Popularity p = popularity_of({5, 5, 5, 5});
  EXPECT_EQ(p.selections, 20u);
  EXPECT_DOUBLE_EQ(p.entropy_bits, 2.0);
  EXPECT_DOUBLE_EQ(p.entropy_normalised, 1.0);
  EXPECT_NEAR(p.gini, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(p.top10_share, 0.25);  // ceil(10% of 4) = 1 expert
  EXPECT_NEAR(p.zipf_s, 0.0, 1e-12);
}

TEST(Popularity, OneExpertTakingAllHasZeroEntropyAndMaximalGini) {
  const Popularity p = popularity_of({0, 0, 0, 8});
  EXPECT_DOUBLE_EQ(p.entropy_bits, 0.0);
  EXPECT_DOUBLE_EQ(p.gini, 0.75);  // (n - 1) / n
  EXPECT_DOUBLE_EQ(p.top10_share, 1.0);
}

TEST(Popularity, GiniOfOneTwoThreeFour) {
  // 2 * (1*1 + 2*2 + 3*3 + 4*4) / (4 * 10) - 5/4 = 0.25
  EXPECT_NEAR(popularity_of({3, 1, 4, 2}).gini, 0.25, 1e-12);
}

TEST(Popularity, ZipfMaximumLikelihoodRecoversTheExponent) {
  for (double s : {0.5, 1.0, 1.5}) {
    std::vector<uint64_t> counts;
    for (int rank = 1; rank <= 64; ++rank)
      counts.push_back(static_cast<uint64_t>(std::llround(1e6 * std::pow(rank, -s))));
    const Popularity p = popularity_of(counts);
    EXPECT_NEAR(p.zipf_s, s, 0.01) << s;
    EXPECT_NEAR(p.zipf_s_by_id, s, 0.01) << s;  // ids in popularity order here
    EXPECT_DOUBLE_EQ(p.rank_id_spearman, 1.0);
  }
}

TEST(Popularity, ExpertsAtThePerTokenCapAreLeftOutOfTheFit) {
  // 1000 tokens; the first two experts are chosen by every token (capped),
  // the rest follow rank^-1 from rank 3 on.
  std::vector<uint64_t> counts = {1000, 1000};
  for (int rank = 3; rank <= 64; ++rank)
    counts.push_back(static_cast<uint64_t>(std::llround(1800.0 / rank)));
  const Popularity p = popularity_of(counts, 1000);
  EXPECT_EQ(p.experts_capped, 2);
  EXPECT_NEAR(p.zipf_s, 1.0, 0.02);
  // Without the cap known, the two saturated experts flatten the head.
  EXPECT_LT(popularity_of(counts).zipf_s, 0.95);
}

TEST(Popularity, ZipfOfUniformCountsIsZeroAndReversedIdsCorrelateNegatively) {
  EXPECT_DOUBLE_EQ(zipf_mle({10, 10, 10, 10}, {1, 2, 3, 4}), 0.0);
  std::vector<uint64_t> reversed;
  for (int e = 0; e < 16; ++e) reversed.push_back(static_cast<uint64_t>(100 + 10 * e));
  const Popularity p = popularity_of(reversed);
  EXPECT_DOUBLE_EQ(p.rank_id_spearman, -1.0);
  EXPECT_DOUBLE_EQ(p.zipf_s_by_id, 0.0);  // the twin's order rises: no skew that way
  EXPECT_GT(p.zipf_s, 0.0);
}

TEST(Popularity, PerLayerCountsFromATrace) {
  const RoutingTrace t = test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0});
  const auto layers = layer_popularity(t);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].layer, 1);
  EXPECT_EQ(layers[0].counts, (std::vector<uint64_t>{3, 2, 2, 1}));
  EXPECT_DOUBLE_EQ(layers[0].top10_share, 3.0 / 8);
}

}  // namespace
}  // namespace moesweep
