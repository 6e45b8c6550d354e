// The LRU simulation against hit rates worked out on paper, and against a
// brute-force LRU on a random trace.
#include <gtest/gtest.h>

#include <list>
#include <random>

#include "analysis/cache_sim.hpp"
#include "analysis/hand_trace.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::MiB;

// Reads 0 1 2 0 1 2 3 0 of 1 MiB blocks. Stack distances (distinct blocks
// since the last read, itself included): 0,1,2,3 cold; the second 0, 1, 2
// each 3 MiB; the last 0 4 MiB (1, 2, 3 in between). So of 8 reads: a
// 2 MiB cache hits none, 3 MiB hits 3 (37.5%), 4 MiB and more hits 4 (50%).
TEST(LruOnPaper, HitRatesOfAHandMadeTrace) {
  const RoutingTrace t = test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0});
  const auto reads = expert_block_accesses(t);
  ASSERT_EQ(reads.size(), 8u);
  const auto d = stack_distances(reads);
  const std::vector<uint64_t> want = {kColdMiss, kColdMiss, kColdMiss, 3 * MiB,
                                      3 * MiB,   3 * MiB,   kColdMiss, 4 * MiB};
  EXPECT_EQ(d, want);
  const LruCurve lru(reads, d);
  EXPECT_DOUBLE_EQ(lru.at(2 * MiB).generation, 0.0);
  EXPECT_DOUBLE_EQ(lru.at(3 * MiB).generation, 0.375);
  EXPECT_DOUBLE_EQ(lru.at(4 * MiB - 1).generation, 0.375);
  EXPECT_DOUBLE_EQ(lru.at(4 * MiB).generation, 0.5);
  EXPECT_DOUBLE_EQ(lru.ceiling().generation, 0.5);
  EXPECT_DOUBLE_EQ(lru.at(3 * MiB).prefill, 0.0);  // no prefill reads at all
  EXPECT_DOUBLE_EQ(lru.at(3 * MiB).all, 0.375);
}

// A micro-batch reads each distinct expert once per layer, whatever the
// number of tokens that chose it; the same id in another layer is another block.
TEST(LruOnPaper, MicroBatchReadsEachDistinctExpertOncePerLayer) {
  RoutingTrace t = test::one_expert_per_token({});
  t.model.n_layer = 3;
  t.model.n_expert_used = 2;
  t.model.expert_bytes = {0, MiB, 2 * MiB};
  const int32_t ids[] = {0, 1, 1, 2, 2, 0};  // 3 tokens x 2 experts
  t.add(TracePhase::kPrefill, 1, 3, 2, ids);
  t.add(TracePhase::kPrefill, 2, 1, 2, ids);  // the last layer: one token
  const auto reads = expert_block_accesses(t);
  ASSERT_EQ(reads.size(), 5u);  // experts 0,1,2 of layer 1; 0,1 of layer 2
  EXPECT_EQ(reads[3].block, 2u * 4 + 0);
  EXPECT_EQ(reads[3].bytes, 2 * MiB);
  for (uint64_t d : stack_distances(reads)) EXPECT_EQ(d, kColdMiss);
  EXPECT_EQ(t.tokens(TracePhase::kPrefill), 3u);  // counted at the micro-batch's first layer
  EXPECT_EQ(t.tokens(TracePhase::kGeneration), 0u);
}

// A plain LRU list with byte capacity: the reference the stack distances must match.
double brute_force_hit_rate(const std::vector<BlockAccess>& reads, uint64_t capacity) {
  std::list<std::pair<uint32_t, uint64_t>> lru;  // front = most recent
  uint64_t used = 0, hit = 0, all = 0;
  for (const BlockAccess& a : reads) {
    all += a.bytes;
    auto it =
        std::find_if(lru.begin(), lru.end(), [&](const auto& e) { return e.first == a.block; });
    if (it != lru.end()) {
      hit += a.bytes;
      lru.splice(lru.begin(), lru, it);
      continue;
    }
    lru.emplace_front(a.block, a.bytes);
    used += a.bytes;
    while (used > capacity && !lru.empty()) used -= lru.back().second, lru.pop_back();
  }
  return all ? static_cast<double>(hit) / static_cast<double>(all) : 0;
}

TEST(LruOnPaper, StackDistancesAgreeWithABruteForceLru) {
  std::mt19937 rng(7);
  RoutingTrace t = test::one_expert_per_token({});
  t.model.n_layer = 4;
  t.model.n_expert = 16;
  t.model.n_expert_used = 2;
  t.model.expert_bytes = {0, MiB, MiB, MiB};
  std::discrete_distribution<int> skewed({16, 8, 6, 4, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  for (int tok = 0; tok < 300; ++tok)
    for (int layer = 1; layer < 4; ++layer) {
      int32_t ids[2] = {skewed(rng), 0};
      do ids[1] = skewed(rng);
      while (ids[1] == ids[0]);
      t.add(TracePhase::kGeneration, layer, 1, 2, ids);
    }
  const auto reads = expert_block_accesses(t);
  const LruCurve lru(reads, stack_distances(reads));
  for (uint64_t mib : {1, 2, 5, 8, 13, 20, 32, 48, 64}) {
    SCOPED_TRACE(mib);
    EXPECT_NEAR(lru.at(mib * MiB).generation, brute_force_hit_rate(reads, mib * MiB), 1e-12);
  }
}

TEST(LruOnPaper, LayerReuseCountsColdReadsAndMedians) {
  const RoutingTrace t = test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0});
  const auto reads = expert_block_accesses(t);
  const auto reuse = layer_reuse(reads, stack_distances(reads));
  ASSERT_EQ(reuse.size(), 1u);
  EXPECT_EQ(reuse[0].layer, 1);
  EXPECT_EQ(reuse[0].reads, 8u);
  EXPECT_EQ(reuse[0].cold, 4u);
  EXPECT_EQ(reuse[0].median_bytes, 3 * MiB);  // warm distances 3, 3, 3, 4 MiB
  EXPECT_EQ(reuse[0].p90_bytes, 3 * MiB);
}

}  // namespace
}  // namespace moesweep
