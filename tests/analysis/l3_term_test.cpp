// The L3 term of the decode roofline on numbers worked out by hand.
#include <gtest/gtest.h>

#include "analysis/cache_sim.hpp"
#include "analysis/hand_trace.hpp"
#include "analysis/l3_term.hpp"

namespace moesweep {
namespace {

const HitRateCurve kCurve{{0, 0.5, 1.0}, {0, 0.4, 0.8}};

TEST(L3Term, CurveInterpolatesAndHoldsItsLastValue) {
  EXPECT_DOUBLE_EQ(kCurve.at(-1), 0);
  EXPECT_DOUBLE_EQ(kCurve.at(0.25), 0.2);
  EXPECT_DOUBLE_EQ(kCurve.at(0.75), 0.6);
  EXPECT_DOUBLE_EQ(kCurve.at(3), 0.8);
}

TEST(L3Term, HotSetFitsAndExpertsShareTheRest) {
  L3Inputs in;
  in.hot_bytes = 100, in.routed_bytes_per_token = 400, in.routed_bytes_total = 1000;
  in.streamed_bytes = 50, in.l3_bytes = 600, in.bandwidth_gbps = 1;
  const L3Estimate e = l3_decode_estimate(in, kCurve);
  EXPECT_TRUE(e.hot_fits);
  EXPECT_DOUBLE_EQ(e.expert_cache_bytes, 500);  // half the pool -> hit 0.4
  EXPECT_DOUBLE_EQ(e.hit_rate, 0.4);
  EXPECT_DOUBLE_EQ(e.dram_bytes_no_l3, 550);
  EXPECT_DOUBLE_EQ(e.dram_bytes_with_l3, 400 * 0.6 + 50);
  EXPECT_DOUBLE_EQ(e.tps_no_l3, 1e9 / 550);
  EXPECT_DOUBLE_EQ(e.tps_with_l3, 1e9 / 290);
}

TEST(L3Term, HotSetTooBigLeavesEverythingToDram) {
  L3Inputs in;
  in.hot_bytes = 100, in.routed_bytes_per_token = 400, in.routed_bytes_total = 1000;
  in.streamed_bytes = 50, in.l3_bytes = 60, in.bandwidth_gbps = 2;
  const L3Estimate e = l3_decode_estimate(in, kCurve);
  EXPECT_FALSE(e.hot_fits);
  EXPECT_DOUBLE_EQ(e.hit_rate, 0);
  EXPECT_DOUBLE_EQ(e.dram_bytes_with_l3, 550);
  EXPECT_DOUBLE_EQ(e.tps_with_l3, e.tps_no_l3);
}

// The hand-made trace's curve (0 1 2 0 1 2 3 0, 1 MiB experts, 4 MiB pool):
// 37.5% from 3/4 of the pool, 50% from the whole pool on.
TEST(L3Term, CurveFromATraceIsAShareOfThePool) {
  const RoutingTrace t = test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0});
  const auto reads = expert_block_accesses(t);
  const LruCurve lru(reads, stack_distances(reads));
  const HitRateCurve c = hit_rate_curve(lru, 4 << 20);
  EXPECT_DOUBLE_EQ(c.at(0.5), 0);
  EXPECT_DOUBLE_EQ(c.at(0.75), 0.375);
  EXPECT_DOUBLE_EQ(c.at(1.0), 0.5);
  EXPECT_DOUBLE_EQ(c.at(5.0), 0.5);
}

}  // namespace
}  // namespace moesweep
