// A gate over k cells: the family's control of false alarms (Holm's step-down,
// or one test per metric on the geometric mean ratio across the cells), the
// aggregates every report prints, and what the whole gate could detect.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "results/compare.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

std::vector<MetricComparison*> tested_cells(Comparison& c) {
  std::vector<MetricComparison*> out;
  for (PointComparison& pc : c.points)
    for (MetricComparison& m : pc.metrics)
      if (m.n_base >= 2 && m.n_new >= 2 && m.ratio_hi > 0) out.push_back(&m);
  return out;
}

// Holm: the i-th smallest of k p values times (k - i), made monotone; each
// cell's MDE at alpha / k, what a lone regression must beat.
void holm(std::vector<MetricComparison*>& cells, double alpha) {
  std::vector<MetricComparison*> by_p = cells;
  std::stable_sort(by_p.begin(), by_p.end(), [](const auto* a, const auto* b) {
    return a->result.p_value < b->result.p_value;
  });
  const size_t k = by_p.size();
  double running = 0;
  for (size_t i = 0; i < k; ++i) {
    running =
        std::max(running, std::min(1.0, static_cast<double>(k - i) * by_p[i]->result.p_value));
    by_p[i]->p_family = running;
    by_p[i]->alpha = alpha / static_cast<double>(k);
  }
}

// The geometric mean ratio of one metric's cells: the mean of their log
// ratios, its standard error from theirs, Welch-Satterthwaite dof.
Aggregate aggregate_of(Metric metric, const std::vector<MetricComparison*>& cells, double alpha,
                       double threshold) {
  Aggregate a;
  a.metric = metric;
  a.alpha = alpha;
  double sum_log = 0, var = 0, dof_denominator = 0;
  for (const MetricComparison* m : cells) {
    if (m->metric != metric) continue;
    ++a.cells;
    sum_log += std::log(m->ratio);
    const double v = m->spread.se * m->spread.se;
    var += v;
    dof_denominator += v * v / m->spread.dof;
  }
  if (a.cells == 0) return a;
  const double k = a.cells;
  const double se = std::sqrt(var) / k;
  const double dof = dof_denominator > 0 ? var * var / dof_denominator : 1;
  const double mean = sum_log / k;
  a.ratio = std::exp(mean);
  const double half = student_t_quantile(0.975, dof) * se;
  a.ratio_lo = a.ratio * std::exp(-half);
  a.ratio_hi = a.ratio * std::exp(half);
  a.result.dof = dof;
  a.result.statistic = se > 0 ? mean / se : (mean == 0 ? 0 : (mean > 0 ? INFINITY : -INFINITY));
  a.result.p_value = se > 0 ? std::min(1.0, 2 * student_t_cdf(-std::fabs(a.result.statistic), dof))
                            : (mean == 0 ? 1.0 : 0.0);
  // The same rule as a cell's (compare_cell.cpp), on the aggregate.
  MetricComparison as_cell;
  as_cell.n_base = as_cell.n_new = 2;
  as_cell.ratio = a.ratio;
  as_cell.ratio_lo = a.ratio_lo;
  as_cell.ratio_hi = a.ratio_hi;
  as_cell.test = TestKind::kWelch;  // a t test
  as_cell.spread = {se, dof, 2, 2};
  as_cell.p_family = a.result.p_value;
  as_cell.alpha = alpha;
  set_verdict(as_cell, alpha, threshold);
  a.mde = as_cell.mde;
  a.verdict = as_cell.verdict;
  return a;
}

}  // namespace

Family parse_family(const std::string& name) {
  if (name == "holm") return Family::kHolm;
  if (name == "geomean") return Family::kGeomean;
  if (name == "geomean+holm") return Family::kGeomeanHolm;
  if (name == "none") return Family::kNone;
  throw UserError("unknown --family '" + name + "'", "geomean+holm, holm, geomean or none",
                  "leave --family out (geomean+holm: the geometric mean ratio per metric and "
                  "every cell under Holm, false alarms held at alpha over all of them)");
}

const char* family_name(Family f) {
  switch (f) {
    case Family::kHolm:
      return "holm";
    case Family::kGeomean:
      return "geomean";
    case Family::kGeomeanHolm:
      return "geomean+holm";
    case Family::kNone:
      return "none";
  }
  return "?";
}

double cell_alpha_of(const CompareOptions& o, int tests) {
  const double k = std::max(1, tests);
  switch (o.family) {
    case Family::kHolm:
      return o.alpha / k;
    case Family::kGeomeanHolm:
      return o.alpha / 2 / k;  // the cells' half of alpha, under Holm
    case Family::kGeomean:
    case Family::kNone:
      return o.alpha;
  }
  return o.alpha;
}

// The cells' share of alpha and the aggregates' (the gate's false alarms stay
// at alpha over both: a union bound when both are tested).
void apply_family(Comparison& c) {
  const CompareOptions& o = c.options;
  const bool both = o.family == Family::kGeomeanHolm;
  const double cells_alpha = both ? o.alpha / 2 : o.alpha;
  std::vector<MetricComparison*> cells = tested_cells(c);
  if (o.family == Family::kHolm || both) holm(cells, cells_alpha);
  for (MetricComparison* m : cells) set_verdict(*m, cells_alpha, o.threshold);
  c.regressions = c.improvements = 0;
  for (const MetricComparison* m : cells) {
    c.regressions += m->verdict == Verdict::kRegression;
    c.improvements += m->verdict == Verdict::kImprovement;
  }
  // One aggregate per metric; as the gate (geomean, geomean+holm) each at its
  // share of alpha / metrics.
  std::vector<Metric> metrics;
  for (const MetricComparison* m : cells)
    if (std::find(metrics.begin(), metrics.end(), m->metric) == metrics.end())
      metrics.push_back(m->metric);
  const bool gated = o.family == Family::kGeomean || both;
  const double aggregate_alpha =
      gated && !metrics.empty() ? (both ? o.alpha / 2 : o.alpha) / metrics.size() : o.alpha;
  c.aggregates.clear();
  for (Metric metric : o.metrics)
    if (std::find(metrics.begin(), metrics.end(), metric) != metrics.end())
      c.aggregates.push_back(aggregate_of(metric, cells, aggregate_alpha, o.threshold));
  set_gate_summary(c);
}

}  // namespace moesweep
