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

TEST(Popularity, ZipfFitRecoversTheExponent) {
  for (double s : {0.5, 1.0, 1.5}) {
    std::vector<uint64_t> counts;
    for (int rank = 1; rank <= 64; ++rank)
      counts.push_back(static_cast<uint64_t>(std::llround(1e6 * std::pow(rank, -s))));
    EXPECT_NEAR(popularity_of(counts).zipf_s, s, 0.01) << s;
  }
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
