// ggml's thread-to-row assignment and the L3-domain model on recorded
// topologies (tests/data/topologies: a 16-CCD EPYC 9175F, an 8-CCD 9575F, a
// 12-CCD 9654 and a unified-L3 Xeon), checked on values worked out by hand
// from the vendored ggml-cpu.c / repack.cpp.
#include <gtest/gtest.h>

#include <numeric>

#include "analysis/hand_trace.hpp"
#include "analysis/l3_domains.hpp"
#include "analysis/l3_model.hpp"
#include "hw/topology.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

using test::MiB;

Topology recorded(const std::string& name) {
  const auto path = std::filesystem::path(MOESWEEP_TEST_DATA) / "topologies" / (name + ".json");
  return topology_from_json(read_json_file(path, "topology"), path.string());
}

int64_t sum(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{0});
}

TEST(RowSplit, ChunkedDecodeUnderFourChunksPerThreadIsOneSlicePerThread) {
  // 2048 rows = 32 chunks of 64 < 4 x 16: nchunk0 = nth, 128 rows each, every step.
  const RowSplit s = split_rows(2048, 16, RowSchedule::kChunked);
  EXPECT_EQ(s.dynamic_rows, 0);
  for (int64_t r : s.static_rows) EXPECT_EQ(r, 128);
  // 100 rows on 3 threads: ceil(100/3) = 34, 34, 32.
  EXPECT_EQ(split_rows(100, 3, RowSchedule::kChunked).static_rows,
            (std::vector<int64_t>{34, 34, 32}));
}

TEST(RowSplit, ChunkedDecodeFromFourChunksPerThreadHandsTheRestToTheCounter) {
  // Kimi's fused gate_up: 4096 rows = 64 chunks = 4 x 16: thread i chunk i, 48 chunks dynamic.
  const RowSplit s = split_rows(4096, 16, RowSchedule::kChunked);
  EXPECT_EQ(s.chunk_rows, 64);
  EXPECT_EQ(s.dynamic_rows, 48 * 64);
  EXPECT_EQ(sum(s.static_rows), 16 * 64);
  // Kimi's down: 7168 rows = 112 chunks: 16 static, 96 dynamic.
  EXPECT_EQ(split_rows(7168, 16, RowSchedule::kChunked).dynamic_rows, 96 * 64);
}

TEST(RowSplit, RepackedTypesSplitStaticallyInMultiplesOfEight) {
  const RowSplit s = split_rows(4096, 16, RowSchedule::kStaticRows);
  EXPECT_EQ(s.dynamic_rows, 0);
  for (int64_t r : s.static_rows) EXPECT_EQ(r, 256);
  // 100 rows, 3 threads: [0,40) [40,72) [72,100): starts rounded up to 8.
  EXPECT_EQ(split_rows(100, 3, RowSchedule::kStaticRows).static_rows,
            (std::vector<int64_t>{40, 32, 28}));
}

TEST(RowSchedule, TheRepackedTypesOfX86) {
  EXPECT_EQ(row_schedule_for("q4_0", 4096, true, false), RowSchedule::kStaticRows);
  EXPECT_EQ(row_schedule_for("q4_K", 4096, true, false), RowSchedule::kStaticRows);
  EXPECT_EQ(row_schedule_for("q8_0", 4096, true, true), RowSchedule::kChunked);
  EXPECT_EQ(row_schedule_for("q6_K", 4096, true, true), RowSchedule::kChunked);
  EXPECT_EQ(row_schedule_for("q2_K", 4096, true, false), RowSchedule::kChunked);
  EXPECT_EQ(row_schedule_for("q2_K", 4096, true, true), RowSchedule::kStaticRows);
  EXPECT_EQ(row_schedule_for("q4_0", 4100, true, false), RowSchedule::kChunked);   // rows % 8
  EXPECT_EQ(row_schedule_for("q4_K", 4096, false, false), RowSchedule::kChunked);  // no AVX2
}

TEST(DynamicShare, TheIssuesThreeShapesAtSixteenThreads) {
  // Kimi (hidden 7168, expert FFN 2048): separate gate/up 29%, fused gate_up 79%.
  EXPECT_NEAR(dynamic_share(expert_matrices(7168, 2048, false, RowSchedule::kChunked), 16),
              96.0 / 112 / 3, 1e-12);
  EXPECT_NEAR(dynamic_share(expert_matrices(7168, 2048, true, RowSchedule::kChunked), 16),
              2.0 / 3 * 48 / 64 + 1.0 / 3 * 96 / 112, 1e-12);
  // The l3-scale twin (hidden 1024, fused 2 x 2048): 2/3 x 48/64 = 50%.
  EXPECT_NEAR(dynamic_share(expert_matrices(1024, 2048, true, RowSchedule::kChunked), 16), 0.5,
              1e-12);
  // Q4_K experts on AVX2 are repacked: nothing dynamic.
  EXPECT_EQ(dynamic_share(expert_matrices(7168, 2048, true, RowSchedule::kStaticRows), 16), 0);
}

TEST(DomainLayout, RecordedTopologiesPutThreadsWhereTheSpreadOrderDoes) {
  const DomainLayout f = domain_layout(recorded("epyc-9175f"), 16);
  ASSERT_EQ(f.domain_bytes.size(), 16u);
  for (int t = 0; t < 16; ++t) EXPECT_EQ(f.thread_domain[t], t);  // one core per CCD
  const DomainLayout g = domain_layout(recorded("epyc-9575f"), 16);
  ASSERT_EQ(g.domain_bytes.size(), 8u);
  for (int t = 0; t < 16; ++t) EXPECT_EQ(g.thread_domain[t], t % 8);  // two threads per CCD
  const DomainLayout h = domain_layout(recorded("epyc-9654"), 24);
  ASSERT_EQ(h.domain_bytes.size(), 12u);
  EXPECT_EQ(h.thread_domain[13], 1);
  const DomainLayout x = domain_layout(recorded("xeon-unified-16"), 16);
  ASSERT_EQ(x.domain_bytes.size(), 1u);
  EXPECT_EQ(x.domain_bytes[0], 300 * MiB);
  for (int d : x.thread_domain) EXPECT_EQ(d, 0);
  // The measured usable L3 replaces every domain's size.
  EXPECT_EQ(domain_layout(recorded("epyc-9175f"), 4, 24 * MiB).domain_bytes[3], 24 * MiB);
}

TEST(DomainLayout, AProfilesEvenSplitMatchesTheRecordedOne) {
  const Topology t = evenly_split_topology(64, 8, 32 * MiB);
  EXPECT_EQ(t.spread_cpus, recorded("epyc-9575f").spread_cpus);
}

RoutingTrace random_trace(int n, uint64_t bytes, int tokens, uint64_t seed) {
  return test::random_trace(n, bytes, tokens, 8, seed);
}

uint64_t total_bytes(const std::vector<std::vector<BlockAccess>>& streams) {
  uint64_t s = 0;
  for (const auto& d : streams)
    for (const BlockAccess& a : d) s += a.bytes;
  return s;
}

TEST(DomainStreams, EveryExpertByteGoesToExactlyOneDomain) {
  const RoutingTrace t = random_trace(64, 3 * 1024 * 4096, 40, 3);  // rows divide evenly
  const auto stream = expert_block_accesses(t);
  uint64_t all = 0;
  for (const BlockAccess& a : stream) all += a.bytes;
  for (const char* name : {"epyc-9175f", "epyc-9575f", "xeon-unified-16"}) {
    SCOPED_TRACE(name);
    const DomainLayout l = domain_layout(recorded(name), 16);
    const auto m = expert_matrices(4096, 1024, true, RowSchedule::kChunked);
    EXPECT_EQ(total_bytes(domain_streams(stream, m, l)), all);
  }
}

TEST(DomainModel, StaticRowsOnSixteenCcdsHitAsOneSharedCacheOfTheSum) {
  // Equal static slices: each CCD sees the same reads at 1/16 the size with
  // 1/16 the cache, so its hit rate is the shared cache's, exactly.
  const RoutingTrace t = random_trace(64, 16 * 3 * 4096, 200, 5);
  const auto stream = model_block_accesses(t, trace_sizes(t.model));
  CacheMachine m;
  m.matrices = expert_matrices(1024, 4096, false, RowSchedule::kStaticRows);
  const uint64_t pool = 64ull * 16 * 3 * 4096;
  for (double share : {0.25, 0.5, 1.25}) {
    const auto total = static_cast<uint64_t>(share * static_cast<double>(pool)) / 16 * 16;
    m.layout = domain_layout(recorded("epyc-9175f"), 16, total / 16);
    CacheMachine shared = m;
    shared.layout = shared_layout(16, total);
    EXPECT_NEAR(model_hits(stream, m, CacheModel::kByteLru).generation,
                model_hits(stream, shared, CacheModel::kByteLru).generation, 1e-9)
        << share;
  }
}

TEST(DomainModel, DynamicChunksOnSixteenCcdsLoseMostOfTheSharedHits) {
  // A pool of half the total L3: one shared cache holds it all (only cold
  // misses); with 79% of the bytes on a random CCD each step, every CCD must
  // hold most of the pool in 1/16 of the cache.
  const RoutingTrace t = random_trace(32, 3 * 7168 * 2048, 150, 9);
  const auto stream = model_block_accesses(t, trace_sizes(t.model));
  const uint64_t pool = 32ull * 3 * 7168 * 2048;
  CacheMachine dynamic;
  dynamic.matrices = expert_matrices(7168, 2048, true, RowSchedule::kChunked);
  dynamic.layout = domain_layout(recorded("epyc-9175f"), 16, pool / 8);
  CacheMachine shared = dynamic;
  shared.layout = shared_layout(16, 2 * pool);
  const double one = model_hits(stream, shared, CacheModel::kByteLru).generation;
  const double split = model_hits(stream, dynamic, CacheModel::kByteLru).generation;
  EXPECT_GT(one, 0.9);
  EXPECT_LT(split, 0.5 * one);
  // The unified-L3 Xeon is one domain: the shared model exactly.
  CacheMachine xeon = dynamic;
  xeon.layout = domain_layout(recorded("xeon-unified-16"), 16, 2 * pool);
  EXPECT_DOUBLE_EQ(model_hits(stream, xeon, CacheModel::kByteLru).generation, one);
}

}  // namespace
}  // namespace moesweep
