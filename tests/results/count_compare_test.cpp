// The exact gate's verdicts (results/count_compare.hpp) on records shaped as
// --counters sim writes them (counters/sim_session.cpp): the tolerance decides,
// a count one side lacks makes the gate inconclusive (never a pass), and runs
// without simulated counts or with other caches are refused.
#include <gtest/gtest.h>

#include "results/count_compare.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using nlohmann::json;

json sim_counters(double instructions, const std::string& caches) {
  return {
      {"instructions_per_token", instructions},
      {"ll_misses_per_token", 1000.0},
      {"sources", {{"instructions_per_token", "simulated"}, {"ll_misses_per_token", "simulated"}}},
      {"simulated", {{"cache", "LL 32 MiB 16-way"}, {"caches", caches}}}};
}

LoadedRun run_of(const std::string& label, double tg_instructions,
                 const std::string& caches = "LL=33554432B,16,64 D1=32768B,8,64 I1=32768B,8,64") {
  LoadedRun run;
  run.label = label;
  Record r;
  r.params.model_name = "tiny";
  r.params.n_threads = 1;
  r.params.tg = 16;
  r.pp.counters = sim_counters(5e6, caches);
  r.tg.counters = sim_counters(tg_instructions, caches);
  run.records.push_back(r);
  return run;
}

const CountCell& tg_instructions(const CountComparison& c) {
  for (const CountCell& cell : c.points.at(0).cells)
    if (cell.phase == "TG" && cell.metric == "instructions") return cell;
  throw std::runtime_error("no TG instructions cell");
}

TEST(CountCompare, TheToleranceDecides) {
  const auto metrics = parse_count_metrics("instructions,ll_misses");
  const double tol = 0.0005;
  const CountComparison same =
      compare_counts(run_of("a", 1e7), run_of("b", 1e7 * 1.0002), metrics, tol, {});
  EXPECT_EQ(tg_instructions(same).verdict, CountVerdict::kSame);
  EXPECT_EQ(same.exit_status(), 0);
  const CountComparison more =
      compare_counts(run_of("a", 1e7), run_of("b", 1.01e7), metrics, tol, {});
  EXPECT_EQ(tg_instructions(more).verdict, CountVerdict::kMore);
  EXPECT_EQ(more.exit_status(), 4);
  EXPECT_NE(count_comparison_markdown(more).find("MORE WORK"), std::string::npos);
  const CountComparison fewer =
      compare_counts(run_of("a", 1.01e7), run_of("b", 1e7), metrics, tol, {});
  EXPECT_EQ(tg_instructions(fewer).verdict, CountVerdict::kFewer);
  EXPECT_EQ(fewer.exit_status(), 0);
  EXPECT_EQ(count_comparison_json(more)["exit"], 4);
}

TEST(CountCompare, EachMetricHasItsOwnDefaultTolerance) {
  // Between identical builds instructions moved by at most 0.002%, LL misses by 0.25%.
  LoadedRun b = run_of("b", 1e7 * 1.0002);  // +0.02% instructions: more than the work tolerance
  b.records[0].tg.counters["ll_misses_per_token"] = 1003.0;  // +0.3%: within the miss tolerance
  const CountComparison c =
      compare_counts(run_of("a", 1e7), b, parse_count_metrics("instructions,ll_misses"), 0, {});
  EXPECT_EQ(tg_instructions(c).verdict, CountVerdict::kMore);
  EXPECT_DOUBLE_EQ(tg_instructions(c).tolerance, kWorkCountTolerance);
  for (const CountCell& cell : c.points.at(0).cells)
    if (cell.metric == "ll_misses") {
      EXPECT_EQ(cell.verdict, CountVerdict::kSame);
      EXPECT_DOUBLE_EQ(cell.tolerance, kMissCountTolerance);
    }
}

TEST(CountCompare, WhatOneSideLacksIsInconclusiveNotAPass) {
  LoadedRun b = run_of("b", 1e7);
  b.records[0].tg.counters["instructions_per_token"] = {{"unavailable", "no dump"}};
  const auto metrics = parse_count_metrics("instructions");
  const CountComparison c = compare_counts(run_of("a", 1e7), b, metrics, 0.0005, {});
  EXPECT_EQ(tg_instructions(c).verdict, CountVerdict::kMissing);
  EXPECT_NE(tg_instructions(c).why.find("no dump"), std::string::npos);
  EXPECT_EQ(c.exit_status(), exit_code::kInconclusive);
  EXPECT_NE(count_comparison_markdown(c).find("Inconclusive"), std::string::npos);
  // More work elsewhere still fails the gate.
  b.records[0].pp.counters["instructions_per_token"] = 6e6;
  EXPECT_EQ(compare_counts(run_of("a", 1e7), b, metrics, 0.0005, {}).exit_status(), 4);
  // A point only one side has could not be seen either.
  LoadedRun two = run_of("two", 1e7);
  Record deeper = two.records[0];
  deeper.params.n_kv = 256;
  two.records.push_back(deeper);
  const CountComparison extra = compare_counts(run_of("a", 1e7), two, metrics, 0.0005, {});
  EXPECT_EQ(extra.only_in_new.size(), 1u);
  EXPECT_EQ(extra.exit_status(), exit_code::kInconclusive);
}

TEST(CountCompare, RefusesWhatCannotBeCompared) {
  const auto metrics = parse_count_metrics("instructions");
  LoadedRun plain = run_of("plain", 1e7);
  plain.records[0].tg.counters = json::object();
  plain.records[0].pp.counters = json::object();
  test::refused([&] { compare_counts(run_of("a", 1e7), plain, metrics, 0.0005, {}); });
  test::refused([&] {
    compare_counts(run_of("a", 1e7),
                   run_of("b", 1e7, "LL=536870912B,16,64 D1=32768B,8,64 I1=32768B,8,64"), metrics,
                   0.0005, {});
  });
  test::refused([] { parse_count_metrics("instructions,tg"); });
  test::refused([] { is_count_metric_list("instructions,speed"); });
  test::refused([] { parse_count_tolerance("0"); });
  EXPECT_DOUBLE_EQ(parse_count_tolerance("0.05%"), 0.0005);
  EXPECT_FALSE(is_count_metric_list("tg"));
  EXPECT_TRUE(is_count_metric_list("ll_misses"));
}

}  // namespace
}  // namespace moesweep
