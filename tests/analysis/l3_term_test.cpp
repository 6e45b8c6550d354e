// The L3 term of the decode roofline on numbers worked out by hand, and
// predict's way of making a twin's trace stand for a bigger model.
#include <gtest/gtest.h>

#include "analysis/cache_sim.hpp"
#include "analysis/hand_trace.hpp"
#include "analysis/l3_term.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::MiB;

TEST(L3Term, MissesOfBothKindsGoToDram) {
  L3Inputs in;
  in.hot_bytes = 100, in.routed_bytes_per_token = 400, in.streamed_bytes = 50;
  in.bandwidth_gbps = 1;
  HitRates h;
  h.generation = 0.4, h.hot_generation = 0.9;
  const L3Estimate e = l3_decode_estimate(in, h);
  EXPECT_DOUBLE_EQ(e.dram_bytes_no_l3, 550);
  EXPECT_DOUBLE_EQ(e.dram_bytes_with_l3, 100 * 0.1 + 400 * 0.6 + 50);
  EXPECT_DOUBLE_EQ(e.tps_no_l3, 1e9 / 550);
  EXPECT_DOUBLE_EQ(e.tps_with_l3, 1e9 / 300);
}

TEST(L3Term, NoHitsNoGain) {
  L3Inputs in;
  in.hot_bytes = 100, in.routed_bytes_per_token = 400, in.bandwidth_gbps = 2;
  const L3Estimate e = l3_decode_estimate(in, HitRates{});
  EXPECT_DOUBLE_EQ(e.tps_with_l3, e.tps_no_l3);
}

// The hand-made trace (0 1 2 0 1 2 3 0, 1 MiB experts, 4 MiB pool): its
// stream scaled to a model with a 400 MiB pool is the same stream at 100 MiB
// per expert, evaluated at the cache size itself, exactly.
TEST(L3Term, AScaledTraceIsEvaluatedAtTheTargetSizeExactly) {
  const RoutingTrace t = test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0});
  const StreamSizes s = scaled_sizes(t.model, 400.0 * MiB, 0);
  EXPECT_EQ(s.expert_bytes, (std::vector<uint64_t>{0, 100 * MiB}));
  const auto stream = model_block_accesses(t, s);
  EXPECT_DOUBLE_EQ(lru_hit_bytes(stream, 300 * MiB - 1).rates().generation, 0.0);
  EXPECT_DOUBLE_EQ(lru_hit_bytes(stream, 300 * MiB).rates().generation, 0.375);
  EXPECT_DOUBLE_EQ(lru_hit_bytes(stream, 400 * MiB).rates().generation, 0.5);
  // The hot set spreads over the MoE layers: one layer here, 3 MiB a token.
  const StreamSizes hot = scaled_sizes(t.model, 4.0 * MiB, 3.0 * MiB);
  const auto with_hot = model_block_accesses(t, hot);
  ASSERT_EQ(with_hot.size(), 16u);  // a hot block before each step's expert
  EXPECT_TRUE(with_hot[0].hot);
  EXPECT_EQ(with_hot[0].bytes, 3 * MiB);
}

}  // namespace
}  // namespace moesweep
