// The working-set figure's data (issue 11): one curve per skew and depth over
// the routed-expert bytes per layer, the L3 size, dense twins as references;
// nothing for a run without an expert-count axis.
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
  r.extra["roofline"] = {{"routed_expert_bytes_per_layer", routed_bytes},
                         {"l3_bytes", 32u << 20},
                         {"efficiency_tg", s_tg / 1000}};
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
  EXPECT_EQ(first["label"], "skew s=0 N_KV=0");
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

}  // namespace
}  // namespace moesweep
