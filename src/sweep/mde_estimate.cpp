#include "sweep/mde_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "results/compare.hpp"
#include "results/power.hpp"
#include "sweep/repetition_rule.hpp"

namespace moesweep {
namespace {

// unit_mde, memoised over n.
class UnitMde {
 public:
  UnitMde(bool paired, double alpha) : paired_(paired), alpha_(alpha) {}
  double at(int n) {
    auto [it, fresh] = memo_.emplace(n, 0.0);
    if (fresh) it->second = unit_mde(paired_, n, alpha_);
    return it->second;
  }

 private:
  bool paired_;
  double alpha_;
  std::map<int, double> memo_;
};

// The smallest repetition count from -r whose MDE is within the target in
// both phases; --max-repetitions (and *reached false) when none is.
int repetitions_for(double cv_pp, double cv_tg, const SweepSpec& spec, UnitMde& unit,
                    bool* reached) {
  const double target = log_effect_of_slowdown(spec.target_mde_pct / 100);
  for (int n = std::max(1, spec.repetitions); n <= spec.max_repetitions; ++n)
    if (std::max(cv_pp, cv_tg) * unit.at(n) <= target) return n;
  *reached = false;
  return spec.max_repetitions;
}

}  // namespace

double unit_mde(bool paired, int n, double alpha) {
  if (n < 2) return INFINITY;
  const size_t un = static_cast<size_t>(n);
  const double dn = n;
  if (paired)  // log ratios of independent members spread by sqrt 2
    return cell_mde(TestKind::kPairedT, {std::sqrt(2.0 / dn), dn - 1, un, un}, alpha);
  return cell_mde(resolve_test_kind(TestKind::kAuto, un, un),
                  {std::sqrt(2.0 / dn), 2 * (dn - 1), un, un}, alpha);
}

MdeEstimate estimate_target_mde(const Plan& plan, const SpeedTable& speeds) {
  MdeEstimate e;
  const bool paired = plan.engines.size() > 1;
  UnitMde unit(paired, compared_cell_alpha(plan));
  double sum = 0;
  int points = 0;
  for (const PlannedPoint& p : plan.points) {
    const auto cv = speeds.spreads(p.params);
    if (!cv) return e;  // a model that never ran: unknown
    const double cv_pp = plan.models[p.model].contexts[p.context].n_prompt > 0 ? cv->first : 0;
    const double cv_tg = plan.spec.n_gen > 0 ? cv->second : 0;
    bool reached = true;
    // Several engines: a cell decides on the pairs complete when the first of
    // them asks, so it takes one repetition more than its pairs need.
    const int n = std::min(plan.spec.max_repetitions,
                           repetitions_for(cv_pp, cv_tg, plan.spec, unit, &reached) + paired);
    e.at_max += !reached;
    sum += n;
    e.cv_pp += cv_pp;
    e.cv_tg += cv_tg;
    ++points;
  }
  if (points == 0) return e;
  e.known = true;
  e.repetitions = sum / points;
  e.cv_pp /= points;
  e.cv_tg /= points;
  Plan at_target = plan;
  at_target.spec.repetitions = static_cast<int>(std::ceil(e.repetitions));
  e.seconds = estimate_seconds(at_target, speeds);
  const std::optional<double> minimum = estimate_seconds(plan, speeds);
  if (e.seconds && minimum && plan.spec.max_time_s > 0)
    e.seconds = std::min(*e.seconds, std::max(*minimum, plan.spec.max_time_s));
  return e;
}

std::string target_mde_line(const Plan& plan, const SpeedTable& speeds) {
  const SweepSpec& spec = plan.spec;
  if (spec.target_mde_pct <= 0) return "";
  const std::string limit =
      spec.max_time_s > 0 ? fmt::format(", --max-time {:g} s", spec.max_time_s) : "";
  const std::string what = fmt::format(
      "--target-mde {:g}%: each cell's MDE at alpha {:.4g} (Holm over {} test(s) at half of 0.05, "
      "compare's default geomean+holm) and 90% power",
      spec.target_mde_pct, compared_cell_alpha(plan), compared_tests(plan));
  const MdeEstimate e = estimate_target_mde(plan, speeds);
  if (!e.known)
    return fmt::format(
        "{}: no earlier run of these models with 2 repetitions or more shows their spread; "
        "{} to {} repetitions a point{}\n",
        what, spec.repetitions, spec.max_repetitions, limit);
  std::string out = fmt::format(
      "{}: about {:.1f} repetitions a point ({}..{}) at the spread of earlier runs (CV S_PP "
      "{:.1f}%, S_TG {:.1f}%{})",
      what, e.repetitions, spec.repetitions, spec.max_repetitions, 100 * e.cv_pp, 100 * e.cv_tg,
      plan.engines.size() > 1 ? ", pairs taken as sharing no swing" : "");
  if (e.at_max > 0)
    out += fmt::format("; {} point(s) would not reach it within --max-repetitions", e.at_max);
  if (e.seconds) out += fmt::format("; about {:.0f} s in all{}", *e.seconds, limit);
  return out + "\n";
}

}  // namespace moesweep
