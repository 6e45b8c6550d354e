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

}  // namespace

std::string mde_percent(double log_effect) {
  if (!std::isfinite(log_effect)) return "none";
  const double pct = 100 * mde_slowdown(log_effect);
  return pct < 9.95 ? fmt::format("{:.1f}%", pct) : fmt::format("{:.0f}%", pct);
}

void set_gate_summary(Comparison& c) {
  GateSummary g;
  const double t = c.options.threshold;
  const bool geo = c.options.family == Family::kGeomean;
  std::vector<double> mdes;
  for (const PointComparison& pc : c.points)
    for (const MetricComparison& m : pc.metrics) {
      if (m.verdict == Verdict::kUntestable) {
        ++g.untestable;
        continue;
      }
      ++g.tests;
      g.above += m.verdict == Verdict::kInconclusive;
      if (!geo) mdes.push_back(m.mde);
    }
  bool regression = !geo && c.regressions > 0, unsure = !geo && (g.above > 0 || g.untestable > 0);
  for (const Aggregate& a : c.aggregates) {
    if (!geo) break;
    mdes.push_back(a.mde);
    regression = regression || a.verdict == Verdict::kRegression;
    unsure = unsure || a.verdict == Verdict::kInconclusive || a.verdict == Verdict::kUntestable;
  }
  unsure = unsure || mdes.empty();
  g.outcome = regression ? GateOutcome::kRegression
                         : (unsure ? GateOutcome::kInconclusive : GateOutcome::kPass);
  g.mde_lo = mdes.empty() ? INFINITY : *std::min_element(mdes.begin(), mdes.end());
  g.mde_hi = mdes.empty() ? INFINITY : *std::max_element(mdes.begin(), mdes.end());
  const std::string where = geo ? fmt::format("the geometric mean ratio ({})", aggregates_text(c))
                                : std::string("any cell");
  const std::string how = method_text(c, g.tests);
  const std::string range = mdes.empty() ? "none" : range_text(mdes);
  const double pct = 100 * t;
  if (g.outcome == GateOutcome::kRegression) {
    g.line = geo ? fmt::format("real regression of {:g}% or more in {} (MDE {}; {})", pct, where,
                               range, how)
                 : fmt::format("{} real regression(s) of {:g}% or more (MDE {}; {})", c.regressions,
                               pct, range, how);
  } else if (g.outcome == GateOutcome::kPass) {
    g.line =
        fmt::format("no regression of {:g}% or more in {} (MDE {}; {})", pct, where, range, how);
  } else if (g.tests == 0) {
    g.line = fmt::format(
        "inconclusive: nothing could be tested, every cell has under 2 samples a side (a "
        "published table times each depth once); a {:g}% regression cannot be seen",
        pct);
  } else {
    std::string which;
    if (!geo && g.above > 0) which += fmt::format("; {} of {} above {:g}%", g.above, g.tests, pct);
    if (g.untestable > 0)
      which += fmt::format("; {} untestable (under 2 samples a side)", g.untestable);
    g.line = fmt::format(
        "inconclusive: this run cannot detect a {:g}% regression in {} (MDE {}{}): raise the "
        "repetitions (sweep --target-mde {:g}) or the sample length ({})",
        pct, where, range, which, pct, how);
  }
  c.gate = std::move(g);
}

}  // namespace moesweep
