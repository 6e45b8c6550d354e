// A gate over many cells: Holm's adjusted p values and the geometric-mean
// aggregate against values worked by hand (scipy 1.10 for the t quantiles),
// the family-wise false-alarm rate on simulated A/A runs (seeded), and the
// gate's summary: pass only when every deciding MDE is within the threshold,
// inconclusive otherwise, regression when one is found.
#include <gtest/gtest.h>

#include <cmath>

#include "results/compare.hpp"
#include "results/compare_format.hpp"
#include "sample_sets.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

MetricComparison tested_cell(Metric metric, double p, double ratio, double se) {
  MetricComparison m;
  m.metric = metric;
  m.n_base = m.n_new = 5;
  m.base_mean = 100;
  m.new_mean = 100 * ratio;
  m.ratio = ratio;
  m.ratio_lo = ratio * std::exp(-2.776445 * se);
  m.ratio_hi = ratio * std::exp(2.776445 * se);
  m.test = TestKind::kPairedT;
  m.paired = true;
  m.spread = {se, 4, 5, 5};
  m.result.p_value = p;
  m.p_family = p;
  return m;
}

Comparison with_cells(const std::vector<MetricComparison>& cells, Family family) {
  Comparison c;
  c.options.family = family;
  c.options.metrics = {Metric::kTg};
  for (const MetricComparison& m : cells) c.points.push_back({"key", {}, {m}});
  return c;
}

TEST(Family, HolmAdjustsByHand) {
  // p 0.01, 0.04, 0.03, 0.005 -> sorted 0.005 x4 = 0.02, 0.01 x3 = 0.03,
  // 0.03 x2 = 0.06, 0.04 x1 = 0.04 -> 0.06 (monotone)
  Comparison c = with_cells(
      {tested_cell(Metric::kTg, 0.01, 0.9, 0.01), tested_cell(Metric::kTg, 0.04, 0.9, 0.01),
       tested_cell(Metric::kTg, 0.03, 0.9, 0.01), tested_cell(Metric::kTg, 0.005, 0.9, 0.01)},
      Family::kHolm);
  apply_family(c);
  const double expected[] = {0.03, 0.06, 0.06, 0.02};
  for (size_t i = 0; i < 4; ++i) {
    const MetricComparison& m = c.points[i].metrics[0];
    EXPECT_NEAR(m.p_family, expected[i], 1e-12) << i;
    EXPECT_DOUBLE_EQ(m.alpha, 0.05 / 4);
    EXPECT_EQ(m.verdict, expected[i] < 0.05 ? Verdict::kRegression : Verdict::kInconclusive) << i;
  }
  EXPECT_EQ(c.regressions, 2);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kRegression);
  EXPECT_EQ(gate_exit_code(c.gate), 4);
  EXPECT_NE(c.gate.line.find("Holm over 4 test(s)"), std::string::npos) << c.gate.line;
}

TEST(Family, GeometricMeanAggregateByHand) {
  // ratios 0.9, 0.95, 1.0, each se 0.02 at 4 dof: the geometric mean 0.949122,
  // se sqrt(3 x 0.02^2) / 3 = 0.011547 at 12 dof, t = -4.522, p = 0.000699,
  // 95% CI [0.925541, 0.973304], MDE 4.0% (noncentral t, 12 dof)
  Comparison c = with_cells(
      {tested_cell(Metric::kTg, 0.01, 0.9, 0.02), tested_cell(Metric::kTg, 0.2, 0.95, 0.02),
       tested_cell(Metric::kTg, 1.0, 1.0, 0.02)},
      Family::kGeomean);
  apply_family(c);
  ASSERT_EQ(c.aggregates.size(), 1u);
  const Aggregate& a = c.aggregates[0];
  EXPECT_EQ(a.cells, 3);
  EXPECT_NEAR(a.ratio, 0.949121995802933, 1e-9);
  EXPECT_NEAR(a.result.dof, 12, 1e-9);
  EXPECT_NEAR(a.result.statistic, -4.522205969963942, 1e-6);
  EXPECT_NEAR(a.result.p_value, 0.0006991173867006464, 1e-7);
  EXPECT_NEAR(a.ratio_lo, 0.9255411364390547, 1e-6);
  EXPECT_NEAR(a.ratio_hi, 0.9733036463217873, 1e-6);
  EXPECT_NEAR(mde_slowdown(a.mde), 0.040004183633530754, 1e-5);
  EXPECT_EQ(a.verdict, Verdict::kRegression);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kRegression);  // the aggregate decides under geomean
  EXPECT_NE(c.gate.line.find("geometric mean"), std::string::npos) << c.gate.line;
  // per cell at alpha alone: no Holm adjustment
  EXPECT_DOUBLE_EQ(c.points[0].metrics[0].p_family, 0.01);
}

// Engine sides of one simulated run: `cells` TG cells of `reps` pairs, the
// new side `factor` times as fast (only in cell `only`, when given).
std::pair<LoadedRun, LoadedRun> simulated_pair(uint64_t seed, int cells, int reps, double cv,
                                               double factor, int only = -1) {
  LoadedRun a, b;
  for (LoadedRun* side : {&a, &b}) {
    side->label = side == &a ? "run:a" : "run:b";
    side->run_id = "run";
    side->interleaved = true;
  }
  for (int i = 0; i < cells; ++i) {
    const uint64_t s = seed * 1000 + 10 * static_cast<uint64_t>(i);
    const double f = only < 0 || only == i ? factor : 1.0;
    a.records.push_back(
        test::make_record("run", i, 1, 64 * i, {}, test::normal_samples(s, reps, 100, 100 * cv)));
    b.records.push_back(test::make_record(
        "run", i, 1, 64 * i, {}, test::normal_samples(s + 1, reps, 100 * f, 100 * f * cv)));
  }
  return {a, b};
}

// Six cells, no effect, threshold 0 (any significant slowdown counts): with
// Holm the share of gates with a false alarm stays at alpha; each cell on its
// own (none) it grows towards 1 - 0.95^6 = 26% (of which half slower: 14%).
TEST(Family, HolmKeepsTheFamilyWiseFalseAlarmRateAtAlpha) {
  const int gates = 1500;
  int holm_alarms = 0, none_alarms = 0, both_alarms = 0;
  for (int g = 0; g < gates; ++g) {
    const auto [a, b] = simulated_pair(static_cast<uint64_t>(g) + 1, 6, 6, 0.05, 1.0);
    CompareOptions o;
    o.threshold = 0;
    o.metrics = {Metric::kTg};
    // The default: the cells' half of alpha under Holm, the geometric mean the other half.
    both_alarms += compare_runs(a, b, o).gate.outcome == GateOutcome::kRegression;
    o.family = Family::kHolm;
    holm_alarms += compare_runs(a, b, o).regressions > 0;
    o.family = Family::kNone;
    none_alarms += compare_runs(a, b, o).regressions > 0;
  }
  const double bound = 0.05 + 3 * std::sqrt(0.05 * 0.95 / gates);
  const double holm = static_cast<double>(holm_alarms) / gates;
  const double both = static_cast<double>(both_alarms) / gates;
  const double none = static_cast<double>(none_alarms) / gates;
  EXPECT_LE(holm, bound) << holm;
  EXPECT_GT(holm, 0.0);
  EXPECT_LE(both, bound) << both;
  EXPECT_GT(both, 0.0);
  EXPECT_GT(none, 0.09) << "without control six cells alarm far more often than alpha";
}

// The default family on identical sides too noisy for a lone cell to see 5%
// (8 pairs at CV 4%: a cell's MDE about 11%): Holm alone cannot tell, the
// geometric mean over six cells can (MDE about 3%) and passes; the line says
// both ranges. One cell of six 15% slower: the geometric mean moves under 3%
// and, alone, passes it; geomean+holm fails the gate on the cell.
TEST(Family, GeomeanHolmPassesWhatOneCellCannotSeeAndStillFindsOneSlowCell) {
  auto [a, b] = simulated_pair(11, 6, 8, 0.04, 1.0);
  CompareOptions o;
  o.metrics = {Metric::kTg};
  ASSERT_EQ(o.family, Family::kGeomeanHolm);
  Comparison c = compare_runs(a, b, o);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kPass) << c.gate.line;
  EXPECT_LT(mde_slowdown(c.gate.mde_hi), 0.05) << c.gate.line;
  EXPECT_NE(c.gate.line.find("no regression of 5% or more in the geometric mean ratio (S_TG "),
            std::string::npos)
      << c.gate.line;
  EXPECT_NE(c.gate.line.find("nor in any one cell (cells' MDE "), std::string::npos) << c.gate.line;
  EXPECT_NE(c.gate.line.find("Holm over 6 test(s) at alpha 0.025"), std::string::npos)
      << c.gate.line;
  for (const auto& pc : c.points) EXPECT_DOUBLE_EQ(pc.metrics[0].alpha, 0.025 / 6);
  o.family = Family::kHolm;
  EXPECT_EQ(compare_runs(a, b, o).gate.outcome, GateOutcome::kInconclusive);

  std::tie(a, b) = simulated_pair(12, 6, 8, 0.02, 0.85, 2);
  o.family = Family::kGeomean;
  c = compare_runs(a, b, o);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kPass) << "diluted: " << c.gate.line;
  o.family = Family::kGeomeanHolm;
  c = compare_runs(a, b, o);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kRegression) << c.gate.line;
  EXPECT_EQ(gate_exit_code(c.gate), 4);
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(c.points[2].metrics[0].verdict, Verdict::kRegression);
  EXPECT_NE(c.gate.line.find("1 real regression(s) of 5% or more in single cells"),
            std::string::npos)
      << c.gate.line;
}

TEST(Family, EveryFamilyParsesByItsNameAndAnUnknownOneIsExitTwo) {
  for (Family f : {Family::kHolm, Family::kGeomean, Family::kGeomeanHolm, Family::kNone})
    EXPECT_EQ(parse_family(family_name(f)), f);
  try {
    parse_family("bonferroni");
    ADD_FAILURE() << "parsed";
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), exit_code::kBadInput);
    EXPECT_NE(std::string(e.what()).find("geomean+holm"), std::string::npos) << e.what();
  }
}

TEST(Gate, PassOnlyWhenEveryCellCouldHaveSeenTheThreshold) {
  // Under Holm alone. 30 pairs at CV 1%: every MDE well under 5%, no effect: a pass.
  auto [a, b] = simulated_pair(3, 3, 30, 0.01, 1.0);
  CompareOptions holm;
  holm.family = Family::kHolm;
  Comparison c = compare_runs(a, b, holm);
  EXPECT_TRUE(c.paired);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kPass) << c.gate.line;
  EXPECT_EQ(gate_exit_code(c.gate), 0);
  EXPECT_LT(mde_slowdown(c.gate.mde_hi), 0.05);
  EXPECT_NE(c.gate.line.find("no regression of 5% or more in any cell (MDE "), std::string::npos)
      << c.gate.line;
  for (const auto& pc : c.points) EXPECT_EQ(pc.metrics[0].test, TestKind::kPairedT);
  // 3 pairs at CV 10%: nothing that small is detectable: inconclusive, exit 5, never 4.
  std::tie(a, b) = simulated_pair(4, 3, 3, 0.10, 1.0);
  c = compare_runs(a, b, holm);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kInconclusive) << c.gate.line;
  EXPECT_EQ(gate_exit_code(c.gate), exit_code::kInconclusive);
  EXPECT_NE(c.gate.line.find("cannot detect a 5% regression"), std::string::npos) << c.gate.line;
  EXPECT_NE(c.gate.line.find("--target-mde 5"), std::string::npos) << c.gate.line;
  // A 50% slowdown is seen whatever the noise.
  std::tie(a, b) = simulated_pair(5, 3, 5, 0.05, 0.5);
  c = compare_runs(a, b, holm);
  EXPECT_EQ(c.gate.outcome, GateOutcome::kRegression) << c.gate.line;
}

TEST(Gate, UntestableCellsAreInconclusiveNeverAPass) {
  auto [a, b] = simulated_pair(6, 3, 1, 0.01, 1.0);  // one sample a side: a published table
  const Comparison c = compare_runs(a, b, {});
  EXPECT_EQ(c.gate.outcome, GateOutcome::kInconclusive);
  EXPECT_EQ(c.gate.tests, 0);
  EXPECT_NE(c.gate.line.find("nothing could be tested"), std::string::npos) << c.gate.line;
}

TEST(Gate, PairedTestOnSidesWithoutPairsIsExitTwo) {
  auto [a, b] = simulated_pair(7, 2, 5, 0.01, 1.0);
  b.run_id = "another run";
  CompareOptions o;
  o.test = TestKind::kPairedT;
  EXPECT_THROW(compare_runs(a, b, o), UserError);
  o.test = TestKind::kAuto;
  EXPECT_FALSE(compare_runs(a, b, o).paired);
}

TEST(Gate, TheMarkdownSaysTheMdeBesideEveryRatio) {
  auto [a, b] = simulated_pair(8, 2, 5, 0.05, 1.0);
  const std::string md = comparison_markdown(compare_runs(a, b, {}));
  EXPECT_NE(md.find("], MDE "), std::string::npos) << md;
  EXPECT_NE(md.find("**Gate: "), std::string::npos) << md;
  EXPECT_NE(md.find("Geometric mean over 2 cell(s): S_TG"), std::string::npos) << md;
  const nlohmann::json j = comparison_json(compare_runs(a, b, {}));
  EXPECT_EQ(j["family"], "geomean+holm");  // the default
  EXPECT_TRUE(j["paired"].get<bool>());
  EXPECT_TRUE(j["points"][0]["tg"].contains("mde"));
  EXPECT_EQ(j["gate"]["exit_code"], j["gate"]["outcome"] == "pass" ? 0 : 5);
}

}  // namespace
}  // namespace moesweep
