// The gate's summary: what the whole comparison could detect (the MDEs that
// decide it), its outcome (compare's exit status) and the one line that says
// both. Inconclusive is not a pass: a gate exits 0 only when every deciding
// MDE is within the threshold.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "results/compare.hpp"

namespace moesweep {
namespace {

// "paired-t", or "mwu 4, welch 2" when the cells ran different tests.
std::string tests_text(const Comparison& c) {
  std::map<std::string, int> used;
  for (const PointComparison& pc : c.points)
    for (const MetricComparison& m : pc.metrics)
      if (m.verdict != Verdict::kUntestable) ++used[test_kind_name(m.test)];
  if (used.size() == 1) return used.begin()->first;
  std::string out;
  for (const auto& [name, n] : used)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, n);
  return out.empty() ? "no test" : out;
}

std::string method_text(const Comparison& c, int tests) {
  const CompareOptions& o = c.options;
  switch (o.family) {
    case Family::kHolm:
      return fmt::format("{}, Holm over {} test(s) at alpha {}", tests_text(c), tests, o.alpha);
    case Family::kGeomean:
      return fmt::format("t test of the geometric mean ratio per metric at alpha {}/{}", o.alpha,
                         std::max<size_t>(1, c.aggregates.size()));
    case Family::kGeomeanHolm:
      return fmt::format(
          "t test of the geometric mean ratio per metric at alpha {}/{}, and {}, Holm over {} "
          "test(s) at alpha {}",
          o.alpha / 2, std::max<size_t>(1, c.aggregates.size()), tests_text(c), tests, o.alpha / 2);
    case Family::kNone:
      return fmt::format("{}, each cell at alpha {} (no family control)", tests_text(c), o.alpha);
  }
  return "";
}

// "3.1-4.6%", "19%"; cells that can never reach significance said apart.
std::string range_text(const std::vector<double>& mdes) {
  double lo = INFINITY, hi = 0;
  int unbounded = 0;
  for (double d : mdes) {
    if (!std::isfinite(d)) {
      ++unbounded;
      continue;
    }
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  std::string out;
  if (std::isfinite(lo)) {
    const std::string a = mde_percent(lo), b = mde_percent(hi);
    out = a == b ? a : a.substr(0, a.size() - 1) + "-" + b;
  }
  if (unbounded > 0)
    out += fmt::format("{}{} can never reach significance with so few samples",
                       out.empty() ? "" : "; ",
                       unbounded == 1 ? "1 test" : fmt::format("{} tests", unbounded));
  return out;
}

std::string aggregates_text(const Comparison& c) {
  std::string out;
  for (const Aggregate& a : c.aggregates)
    out += fmt::format("{}{} {:.3f} [{:.3f}, {:.3f}]", out.empty() ? "" : ", ",
                       metric_label(a.metric), a.ratio, a.ratio_lo, a.ratio_hi);
  return out;
}

// What decides: the cells (holm, none), the aggregates (geomean) or both
// (geomean+holm: the aggregates say whether the gate could see the threshold,
// a cell found slower by Holm fails it too).
struct Deciding {
  bool cells = false, aggregates = false;
};

Deciding deciding(Family f) {
  return {f != Family::kGeomean, f == Family::kGeomean || f == Family::kGeomeanHolm};
}

// The gate's one line: what it decided and what it could have seen.
std::string gate_line(const Comparison& c, const GateSummary& g, const Deciding& by,
                      const std::vector<double>& mdes, const std::vector<double>& cell_mdes,
                      bool aggregate_regression) {
  const double pct = 100 * c.options.threshold;
  const std::string how = method_text(c, g.tests);
  const std::string range = mdes.empty() ? "none" : range_text(mdes);
  const std::string mean = fmt::format("the geometric mean ratio ({})", aggregates_text(c));
  if (by.cells && by.aggregates) {  // geomean+holm
    const std::string cells = cell_mdes.empty() ? "none" : range_text(cell_mdes);
    if (g.outcome == GateOutcome::kRegression) {
      std::string what;
      if (aggregate_regression)
        what = fmt::format("real regression of {:g}% or more in {}", pct, mean);
      if (c.regressions > 0)
        what += fmt::format("{}{} real regression(s) of {:g}% or more in single cells",
                            what.empty() ? "" : "; ", c.regressions, pct);
      return fmt::format("{} (MDE {}, cells {}; {})", what, range, cells, how);
    }
    if (g.outcome == GateOutcome::kPass)
      return fmt::format(
          "no regression of {:g}% or more in {} (MDE {}), nor in any one cell (cells' MDE {}; "
          "{})",
          pct, mean, range, cells, how);
  }
  const std::string where = by.aggregates ? mean : std::string("any cell");
  if (g.outcome == GateOutcome::kRegression)
    return by.aggregates ? fmt::format("real regression of {:g}% or more in {} (MDE {}; {})", pct,
                                       where, range, how)
                         : fmt::format("{} real regression(s) of {:g}% or more (MDE {}; {})",
                                       c.regressions, pct, range, how);
  if (g.outcome == GateOutcome::kPass)
    return fmt::format("no regression of {:g}% or more in {} (MDE {}; {})", pct, where, range, how);
  if (g.tests == 0)
    return fmt::format(
        "inconclusive: nothing could be tested, every cell has under 2 samples a side (a "
        "published table times each depth once); a {:g}% regression cannot be seen",
        pct);
  std::string which;
  if (!by.aggregates && g.above > 0)
    which += fmt::format("; {} of {} above {:g}%", g.above, g.tests, pct);
  if (g.untestable > 0)
    which += fmt::format("; {} untestable (under 2 samples a side)", g.untestable);
  return fmt::format(
      "inconclusive: this run cannot detect a {:g}% regression in {} (MDE {}{}): raise the "
      "repetitions (sweep --target-mde {:g}) or the sample length ({})",
      pct, where, range, which, pct, how);
}

}  // namespace

std::string mde_percent(double log_effect) {
  if (!std::isfinite(log_effect)) return "none";
  const double pct = 100 * mde_slowdown(log_effect);
  return pct < 9.95 ? fmt::format("{:.1f}%", pct) : fmt::format("{:.0f}%", pct);
}

void set_gate_summary(Comparison& c) {
  GateSummary g;
  const Deciding by = deciding(c.options.family);
  std::vector<double> mdes, cell_mdes;
  for (const PointComparison& pc : c.points)
    for (const MetricComparison& m : pc.metrics) {
      if (m.verdict == Verdict::kUntestable) {
        ++g.untestable;
        continue;
      }
      ++g.tests;
      g.above += m.verdict == Verdict::kInconclusive;
      cell_mdes.push_back(m.mde);
    }
  bool regression = by.cells && c.regressions > 0;
  // A cell under 2 samples a side is in no test: whatever it hides, the gate
  // cannot have seen it, under every family.
  bool unsure = g.untestable > 0 || (!by.aggregates && g.above > 0);
  if (!by.aggregates) mdes = cell_mdes;
  bool aggregate_regression = false;
  for (const Aggregate& a : c.aggregates) {
    if (!by.aggregates) break;
    mdes.push_back(a.mde);
    aggregate_regression = aggregate_regression || a.verdict == Verdict::kRegression;
    unsure = unsure || a.verdict == Verdict::kInconclusive || a.verdict == Verdict::kUntestable;
  }
  regression = regression || aggregate_regression;
  unsure = unsure || mdes.empty();
  g.outcome = regression ? GateOutcome::kRegression
                         : (unsure ? GateOutcome::kInconclusive : GateOutcome::kPass);
  g.mde_lo = mdes.empty() ? INFINITY : *std::min_element(mdes.begin(), mdes.end());
  g.mde_hi = mdes.empty() ? INFINITY : *std::max_element(mdes.begin(), mdes.end());
  g.line = gate_line(c, g, by, mdes, cell_mdes, aggregate_regression);
  c.gate = std::move(g);
}

}  // namespace moesweep
