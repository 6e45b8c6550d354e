// The working-set figure's data (issue 11): one curve per skew and depth over
// the routed-expert pool, the L3 sizes, dense twins as references; nothing
// for a run without an expert-count axis. Then issue 22: the cliff's verdict,
// never "no cliff" for a compute-bound shape.
#include <gtest/gtest.h>

#include "report/working_set.hpp"

namespace moesweep {
namespace {

Record record(uint64_t routed_bytes, double skew, int n_kv, double s_tg) {
  Record r;
  r.params.routing_skew = skew;
  r.params.n_kv = n_kv;
  r.params.n_threads = 2;
  r.params.quant = "Q4_0";
  r.tg.tokens_per_s = {s_tg, s_tg};
  r.tg.summarize();
  PointRoofline& roof = r.extra.roofline.emplace();
  roof.routed_expert_bytes_per_layer = routed_bytes;
  roof.l3_bytes = 32u << 20;
  roof.efficiency_tg = s_tg / 1000;
  return r;
}

TEST(WorkingSetData, CurvesPerSkewAndDepthOverRoutedBytesWithL3AndDenseReference) {
  const uint64_t mib = 1 << 20;
  const std::vector<Record> records = {record(64 * mib, 0, 0, 100),  record(8 * mib, 0, 0, 300),
                                       record(8 * mib, 1.5, 0, 320), record(64 * mib, 1.5, 0, 200),
                                       record(8 * mib, 0, 512, 250), record(64 * mib, 0, 512, 90),
                                       record(0, 0, 0, 150)};
  const nlohmann::json ws = working_set_data(records);
  ASSERT_FALSE(ws.is_null());
  EXPECT_EQ(ws["l3_bytes"], 32u << 20);
  ASSERT_EQ(ws["series"].size(), 3u);  // (s=0, N_KV=0), (s=0, N_KV=512), (s=1.5, N_KV=0)
  const nlohmann::json& first = ws["series"][0];
  EXPECT_EQ(first["label"], "skew s=0 N_KV=0 t=2");
  EXPECT_EQ(first["x"], (nlohmann::json{8 * mib, 64 * mib}));  // sorted by bytes
  EXPECT_EQ(first["s_tg"], (nlohmann::json{300.0, 100.0}));
  EXPECT_EQ(first["eff_tg"], (nlohmann::json{0.3, 0.1}));
  EXPECT_EQ(ws["series"][2]["skew"], 1.5);
  ASSERT_EQ(ws["dense"].size(), 1u);
  EXPECT_EQ(ws["dense"][0]["s_tg"], 150.0);
}

TEST(WorkingSetData, NothingWithoutAnExpertCountAxis) {
  EXPECT_TRUE(
      working_set_data({record(8 << 20, 0, 0, 100), record(8 << 20, 1.5, 0, 120)}).is_null());
  Record plain;  // a record of an older run: no roofline
  EXPECT_TRUE(working_set_data({plain}).is_null());
}

// Five samples per pool size over 12 sizes from 1 to 24 MiB of pool: S_TG
// `hi` below `cliff` MiB and `lo` above, +-3% noise from a fixed seed.
std::vector<Record> experiment(double hi, double lo, double cliff_mib, double kernel_gbps) {
  std::vector<Record> out;
  uint64_t state = 7;
  auto noise = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return 1 + 0.03 * (static_cast<double>(state >> 33) / 2147483648.0 - 1);
  };
  for (double mib : {1.0, 1.4, 2.0, 2.5, 3.0, 3.6, 4.3, 6.0, 8.0, 12.0, 16.0, 24.0}) {
    Record r = record(static_cast<uint64_t>(mib * (1 << 20)), 0, 0, 0);
    const double y = mib < cliff_mib ? hi : lo;
    r.tg.tokens_per_s = {y * noise(), y * noise(), y * noise(), y * noise(), y * noise()};
    r.tg.summarize();
    PointRoofline& roof = *r.extra.roofline;
    roof.routed_expert_bytes_total = static_cast<uint64_t>(mib * (1 << 20));
    roof.routed_bytes_per_token = 1 << 20;  // 1 MiB of experts per token
    roof.kernel_gemv_out_of_cache_gbps = kernel_gbps;
    roof.l3_effective_bytes = 3u << 20;
    out.push_back(r);
  }
  return out;
}

TEST(WorkingSetVerdict, AMemoryBoundCliffIsLocatedWithItsInterval) {
  // 600 t/s past the cliff x 1 MiB = 0.63 GB/s of experts against a 1 GB/s kernel: m = 63%.
  const auto ws = analyse_working_set(experiment(1000, 600, 3.3, 1.0), 300);
  ASSERT_TRUE(ws);
  ASSERT_EQ(ws->curves.size(), 1u);
  const WorkingSetCurve& c = ws->curves[0];
  ASSERT_TRUE(c.memory_bound_share);
  EXPECT_NEAR(*c.memory_bound_share, 600.0 * (1 << 20) / 1e9, 0.02);
  EXPECT_TRUE(c.cliff.resolved);
  EXPECT_GE(c.cliff.position.value, 3.0 * (1 << 20));
  EXPECT_LE(c.cliff.position.value, 3.6 * (1 << 20));
  EXPECT_FALSE(c.cliff.drop.excludes(0.4));
  EXPECT_EQ(c.verdict.rfind("cliff at", 0), 0u) << c.verdict;
  EXPECT_EQ(ws->l3_effective, 3u << 20);
}

TEST(WorkingSetVerdict, AFlatCurveOfAComputeBoundShapeIsNoVerdictNeverNoCliff) {
  // 600 t/s x 1 MiB against a 10 GB/s kernel: the experts take 6% of a token.
  const auto ws = analyse_working_set(experiment(600, 600, 3.3, 10.0), 300);
  ASSERT_TRUE(ws);
  const std::string& v = ws->curves[0].verdict;
  EXPECT_EQ(v.rfind("compute-bound", 0), 0u) << v;
  EXPECT_EQ(v.find("no cliff"), std::string::npos) << v;
  // The same flat curve, memory-bound: now "no cliff" is a finding.
  const auto bound = analyse_working_set(experiment(600, 600, 3.3, 0.5), 300);
  EXPECT_EQ(bound->curves[0].verdict.rfind("no cliff", 0), 0u) << bound->curves[0].verdict;
  // Without a kernel figure there is no verdict either.
  auto records = experiment(600, 600, 3.3, 1.0);
  for (Record& r : records) r.extra.roofline->kernel_gemv_out_of_cache_gbps.reset();
  EXPECT_NE(analyse_working_set(records, 100)->curves[0].verdict.find("no verdict"),
            std::string::npos);
}

}  // namespace
}  // namespace moesweep
