// `l3 TRACE --run RUN`'s values, moved out of the CLI: this machine's target
// picked by where its size comes from (never by its name), the weight bytes
// from DRAM by the L3 term's one formula, and each finished point's counters
// per phase as the run recorded them.
#include <gtest/gtest.h>

#include <fstream>

#include "analysis/l3_counters.hpp"
#include "analysis/l3_term.hpp"
#include "results/record.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TargetPrediction target(const std::string& name, CacheSource source, double hit) {
  TargetPrediction t;
  t.target.name = name;
  t.target.source = source;
  t.with_hot.generation = hit;
  t.with_hot.hot_generation = 0.5;
  return t;
}

L3Analysis analysis_with(std::vector<TargetPrediction> targets) {
  L3Analysis a;
  a.model.hot_bytes = 1000;
  a.model.expert_bytes = {0, 100};  // one MoE layer of 100-byte experts, 2 used: 200 routed
  a.model.n_expert_used = 2;
  a.targets = std::move(targets);
  return a;
}

TEST(L3Counters, TheMeasuredCacheIsThisMachinesElseHwlocsNeverAProfile) {
  const auto both = predicted_traffic_here(
      analysis_with({target("this machine (hwloc)", CacheSource::kHwloc, 0.1),
                     target("this machine (measured)", CacheSource::kMeasured, 0.2),
                     target("epyc-9175f", CacheSource::kProfile, 0.3)}));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->target, "this machine (measured)");
  EXPECT_EQ(both->hits.generation, 0.2);
  const auto hwloc = predicted_traffic_here(
      analysis_with({target("this machine (hwloc)", CacheSource::kHwloc, 0.1)}));
  ASSERT_TRUE(hwloc);
  EXPECT_EQ(hwloc->hits.generation, 0.1);
  // A profile named like this machine is still a profile.
  EXPECT_FALSE(predicted_traffic_here(
      analysis_with({target("this machine (measured)", CacheSource::kProfile, 0.3)})));
}

TEST(L3Counters, WeightBytesFromDramAreTheL3TermsFormulaWithoutTheKvRead) {
  L3Analysis a = analysis_with({target("here", CacheSource::kHwloc, 0.25)});
  const auto p = predicted_traffic_here(a);
  ASSERT_TRUE(p);
  L3Inputs in;
  in.hot_bytes = static_cast<double>(a.model.hot_bytes);
  in.routed_bytes_per_token = static_cast<double>(a.model.routed_bytes_per_token());
  EXPECT_EQ(p->weight_dram_bytes, l3_decode_estimate(in, p->hits).dram_bytes_with_l3);
  EXPECT_DOUBLE_EQ(p->weight_dram_bytes, 1000 * 0.5 + 200 * 0.75);
}

TEST(L3Counters, EachFinishedPointGivesItsPhasesCountersAsRecorded) {
  const auto dir = test::scratch_dir();
  Record ok;
  ok.ok = true;
  ok.params.model_name = "twin-x";
  ok.params.n_threads = 2;
  ok.params.n_kv = 64;
  ok.tg.counters = {{"l3_hit_rate", 0.42}, {"dram_bytes_per_token", {{"unavailable", "no PMU"}}}};
  Record failed = ok;
  failed.ok = false;
  failed.error = "crashed";
  std::ofstream(dir / "records.jsonl") << record_to_json(ok).dump() << "\n"
                                       << record_to_json(failed).dump() << "\n";
  const std::vector<MeasuredPhase> m = measured_phases(dir);
  ASSERT_EQ(m.size(), 2u);  // PP and TG of the finished point only
  EXPECT_EQ(m[0].phase, "PP");
  EXPECT_FALSE(m[0].l3_hit_rate);  // not recorded
  EXPECT_EQ(m[1].phase, "TG");
  EXPECT_EQ(m[1].model, "twin-x");
  EXPECT_EQ(m[1].threads, 2);
  EXPECT_EQ(m[1].n_kv, 64);
  EXPECT_EQ(*m[1].l3_hit_rate, 0.42);
  EXPECT_EQ((*m[1].dram_bytes_per_token)["unavailable"], "no PMU");
  EXPECT_THROW(measured_phases(dir / "nothing"), UserError);
}

}  // namespace
}  // namespace moesweep
