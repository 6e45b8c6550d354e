// Metrics derived from recorded raw counts equal the hand-computed values, and
// anything that cannot be computed says why instead of printing a number.
#include <gtest/gtest.h>

#include <stdexcept>

#include "counter_test_data.hpp"
#include "counters/counter_profile.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/metric_formula.hpp"
#include "util/paths.hpp"

namespace moesweep::counters {
namespace {

TEST(MetricFormula, PrecedenceParenthesesAndNames) {
  const auto lookup = [](const std::string& id) -> std::optional<double> {
    if (id == "A") return 6;
    if (id == "B") return 2;
    return std::nullopt;
  };
  EXPECT_DOUBLE_EQ(evaluate_formula("A + B * 3", lookup), 12);
  EXPECT_DOUBLE_EQ(evaluate_formula("(A + B) * 3", lookup), 24);
  EXPECT_DOUBLE_EQ(evaluate_formula("A / B / 3", lookup), 1);
  EXPECT_DOUBLE_EQ(evaluate_formula("-A + 1e1", lookup), 4);
  EXPECT_TRUE(std::isnan(evaluate_formula("A / (B - 2)", lookup)));
  EXPECT_THROW(evaluate_formula("A + C", lookup), std::invalid_argument);
  EXPECT_THROW(evaluate_formula("A +", lookup), std::invalid_argument);
  EXPECT_EQ(formula_identifiers("(X + Y) * 64 / time / X"),
            (std::vector<std::string>{"X", "Y", "time"}));
}

// Two TG repetitions of 32 tokens each, 1 s each, on a Zen 5.
PhaseTotals recorded_zen5_tg() {
  PhaseTotals t;
  t.repetitions = 2;
  t.wall_s = 2.0;
  t.tokens = 64;
  t.events = {{"L3_LOOKUPS", 1.0e9},  {"L3_HITS", 7.5e8},    {"L3_MISSES", 2.5e8},
              {"DRAM_READ", 1.5e9},   {"DRAM_WRITE", 2.0e8}, {kTaskClockNs, 3.0e9},
              {kContextSwitches, 40}, {kCpuMigrations, 4},   {kPageFaults, 1000}};
  return t;
}

TEST(DerivedMetrics, Zen5FromRecordedCountsMatchHandComputed) {
  const auto m = derive_metrics(shipped("amd-zen5").metrics, recorded_zen5_tg());
  EXPECT_DOUBLE_EQ(m["l3_hit_rate"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(m["l3_misses_per_token"].get<double>(), 2.5e8 / 64);
  EXPECT_DOUBLE_EQ(m["dram_read_gbps"].get<double>(), 1.5e9 * 64 / 2.0 / 1e9);  // 48 GB/s
  EXPECT_DOUBLE_EQ(m["dram_write_gbps"].get<double>(), 6.4);
  EXPECT_DOUBLE_EQ(m["dram_gbps"].get<double>(), 54.4);
  EXPECT_DOUBLE_EQ(m["dram_bytes_per_token"].get<double>(), 1.7e9 * 64 / 64);
}

TEST(DerivedMetrics, SoftwareMetricsArePerRepetitionAndUtilizationIsBusyCpus) {
  const auto m = derive_metrics(software_metric_defs(), recorded_zen5_tg());
  EXPECT_DOUBLE_EQ(m["task_clock_s"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(m["cpu_utilization"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(m["context_switches"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(m["cpu_migrations"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(m["page_faults"].get<double>(), 500);
}

TEST(DerivedMetrics, IntelHitRateFromReferencesAndMisses) {
  PhaseTotals t;
  t.repetitions = 1;
  t.wall_s = 1;
  t.tokens = 10;
  t.events = {{"L3_LOOKUPS", 400}, {"L3_MISSES", 100}, {"DRAM_READ", 1e9}, {"DRAM_WRITE", 0}};
  const auto m = derive_metrics(shipped("intel-spr").metrics, t);
  EXPECT_DOUBLE_EQ(m["l3_hit_rate"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(m["dram_read_gbps"].get<double>(), 64);
  EXPECT_DOUBLE_EQ(m["dram_write_gbps"].get<double>(), 0);  // a real, counted zero
}

TEST(DerivedMetrics, ZeroDenominatorIsUnavailableNotZero) {
  PhaseTotals t = recorded_zen5_tg();
  t.events["L3_LOOKUPS"] = 0;
  const auto m = derive_metrics(shipped("amd-zen5").metrics, t);
  ASSERT_TRUE(m["l3_hit_rate"].is_object());
  EXPECT_NE(m["l3_hit_rate"]["unavailable"].get<std::string>().find("denominator"),
            std::string::npos);
}

TEST(DerivedMetrics, UnavailableEventCarriesItsReason) {
  PhaseTotals t = recorded_zen5_tg();
  t.events.erase("DRAM_READ");
  t.unavailable["DRAM_READ"] = "PMU amd_umc_* not found";
  const auto m = derive_metrics(shipped("amd-zen5").metrics, t);
  EXPECT_EQ(m["dram_read_gbps"]["unavailable"], "DRAM_READ: PMU amd_umc_* not found");
  EXPECT_TRUE(m["dram_write_gbps"].is_number());
}

TEST(DerivedMetrics, Zen3HasNoReadWriteSplitAndSaysSo) {
  PhaseTotals t;
  t.repetitions = 1;
  t.wall_s = 0.5;
  t.tokens = 16;
  t.events = {{"DRAM_ANY", 1e8}, {"L3_LOOKUPS", 10}, {"L3_HITS", 9}, {"L3_MISSES", 1}};
  const auto m = derive_metrics(shipped("amd-zen3").metrics, t);
  EXPECT_NE(m["dram_read_gbps"]["unavailable"].get<std::string>().find("together"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(m["dram_gbps"].get<double>(), 1e8 * 64 / 0.5 / 1e9);
}

TEST(DerivedMetrics, NoRepetitionMeansNoNumbers) {
  const auto m = derive_metrics(software_metric_defs(), PhaseTotals{});
  for (const auto& [name, value] : m.items()) EXPECT_TRUE(value.contains("unavailable")) << name;
}

TEST(DerivedMetrics, EachFieldSaysWhichBackendFilledIt) {
  auto m = derive_metrics(shipped("amd-zen5").metrics, recorded_zen5_tg());
  mark_sources(m, shipped("amd-zen5").metrics, "hardware");
  mark_sources(m, std::vector<std::string>{"instructions_per_token"}, "simulated");  // absent
  EXPECT_EQ(m.at("sources").at("dram_bytes_per_token"), "hardware");
  EXPECT_EQ(m["sources"].at("dram_read_gbps"), "hardware");
  EXPECT_FALSE(m["sources"].contains("instructions_per_token"));  // only fields the phase has
}

}  // namespace
}  // namespace moesweep::counters
