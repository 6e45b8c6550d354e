// The set-associative caches against what their policies must do on
// streams whose outcome is known: a cyclic stream that fits hits after its
// first pass; one twice the cache size never hits under LRU, keeps about a
// cache's worth under bimodal insertion, and something between under random
// replacement; and the hot set inside the byte-LRU stream (issue 22's
// regime hot <= L3 < hot + one token's experts: evicted every token).
#include <gtest/gtest.h>

#include "analysis/cache_policies.hpp"
#include "analysis/hand_trace.hpp"
#include "analysis/l3_model.hpp"
#include "analysis/l3_term.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::MiB;

// `blocks` blocks of 64 KiB read in a cycle `passes` times.
std::vector<BlockAccess> cyclic(int blocks, int passes) {
  std::vector<BlockAccess> s;
  for (int p = 0; p < passes; ++p)
    for (int b = 0; b < blocks; ++b)
      s.push_back({static_cast<uint64_t>(b), 64 * 1024, TracePhase::kGeneration, 0, false});
  return s;
}

double hit(const std::vector<BlockAccess>& s, uint64_t bytes, ReplacementPolicy p) {
  SetAssocCache c;
  c.bytes = bytes;
  c.policy = p;
  return simulate_set_assoc(s, c).rates().generation;
}

TEST(SetAssociative, AStreamThatFitsHitsAfterItsFirstPass) {
  // 2 MiB in a 4 MiB 16-way cache, 10 passes: the cold pass misses (10%);
  // random page colours fill some sets past 16 ways, so allow a little more.
  const auto s = cyclic(32, 10);
  for (ReplacementPolicy p :
       {ReplacementPolicy::kLru, ReplacementPolicy::kBimodal, ReplacementPolicy::kRandom})
    EXPECT_GT(hit(s, 4 * MiB, p), 0.85) << policy_name(p);
}

TEST(SetAssociative, TwiceTheCacheLruKeepsNothingBimodalKeepsACacheFull) {
  const auto s = cyclic(128, 60);  // 8 MiB through a 4 MiB cache, BIP converged
  EXPECT_LT(hit(s, 4 * MiB, ReplacementPolicy::kLru), 0.02);
  const double bip = hit(s, 4 * MiB, ReplacementPolicy::kBimodal);
  EXPECT_GT(bip, 0.3);
  EXPECT_LT(bip, 0.55);
  const double random = hit(s, 4 * MiB, ReplacementPolicy::kRandom);
  EXPECT_GT(random, 0.05);
  EXPECT_LT(random, 0.5);
}

TEST(SetAssociative, ByteLruIsTheFullyAssociativeLimit) {
  // Far from the cliff the 16-way LRU agrees with byte-LRU within a few points.
  const auto s = cyclic(16, 10);  // 1 MiB in 8 MiB
  EXPECT_NEAR(hit(s, 8 * MiB, ReplacementPolicy::kLru),
              lru_hit_bytes(s, 8 * MiB).rates().generation, 0.03);
}

// One MoE layer of 64 experts of 1 MiB, 2 used per token; hot set 3 MiB per token.
RoutingTrace two_of_sixty_four(int tokens) {
  RoutingTrace t = test::one_expert_per_token({});
  t.model.n_expert = 64;
  t.model.n_expert_used = 2;
  t.model.routed_bytes_total = 64 * MiB;
  t.model.hot_bytes = 3 * MiB;
  for (int i = 0; i < tokens; ++i) {
    const int32_t ids[2] = {(2 * i) % 64, (2 * i + 1) % 64};
    t.add(TracePhase::kGeneration, 1, 1, 2, ids);
  }
  return t;
}

TEST(HotSetInTheStream, EvictedEveryTokenWhenOneTokensExpertsDoNotFitBesideIt) {
  const RoutingTrace t = two_of_sixty_four(100);
  const auto stream = model_block_accesses(t, trace_sizes(t.model));
  const LruCurve lru(stream, stack_distances(stream));
  // Its reuse distance is hot + one token's experts = 5 MiB.
  EXPECT_DOUBLE_EQ(lru.at(4 * MiB).hot_generation, 0.0);     // 3 <= 4 < 5: the old rule said "fits"
  EXPECT_NEAR(lru.at(5 * MiB).hot_generation, 0.99, 1e-12);  // all but the first read
  EXPECT_DOUBLE_EQ(lru.at(5 * MiB).generation, 0.0);         // the experts cycle through 64 MiB
  // ... and the DRAM bytes per token follow: 3 + 2 MiB at 4 MiB of L3, 2 MiB at 5 MiB.
  L3Inputs in;
  in.hot_bytes = 3 * MiB, in.routed_bytes_per_token = 2 * MiB, in.bandwidth_gbps = 1;
  EXPECT_DOUBLE_EQ(l3_decode_estimate(in, lru.at(4 * MiB)).dram_bytes_with_l3, 5.0 * MiB);
  EXPECT_NEAR(l3_decode_estimate(in, lru.at(5 * MiB)).dram_bytes_with_l3, 2.0 * MiB + 0.03 * MiB,
              1e-6 * MiB);
}

TEST(HitBand, SpansTheModelsAndNamesThem) {
  const RoutingTrace t = two_of_sixty_four(2000);  // 62 cycles: BIP has converged
  const auto stream = model_block_accesses(t, trace_sizes(t.model));
  CacheMachine m;
  m.layout = shared_layout(1, 48 * MiB);
  const HitBand b = hit_band(stream, m);
  ASSERT_EQ(b.models.size(), 4u);
  for (const ModelHits& h : b.models) {
    EXPECT_LE(h.hits.generation, b.optimistic + 1e-12) << model_name(h.model);
    EXPECT_GE(h.hits.generation, b.pessimistic - 1e-12) << model_name(h.model);
  }
  // A 64 MiB cycle through 48 MiB: LRU keeps none of the experts, BIP most of a cache's worth.
  EXPECT_LT(b.of(CacheModel::kByteLru).generation, 0.01);
  EXPECT_GT(b.of(CacheModel::kBimodal).generation, 0.4);
}

}  // namespace
}  // namespace moesweep
