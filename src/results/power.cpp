#include "results/power.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "results/significance.hpp"

namespace moesweep {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNormalDof = 1e7;  // beyond this the t distribution is the normal's

// Density of s = sqrt(W / dof), W chi-square with `dof` degrees of freedom:
// the denominator of a t statistic in units of the true standard error.
double log_scale_density(double s, double dof) {
  const double w = dof * s * s;
  return (dof / 2 - 1) * std::log(w) - w / 2 - (dof / 2) * std::log(2.0) - std::lgamma(dof / 2) +
         std::log(2 * dof * s);
}

// E_s[ Phi(ncp - c s) + Phi(-ncp - c s) ] by Simpson's rule over the range
// where the density of s is not negligible (12 of its standard deviations).
double noncentral_tail_both(double ncp, double dof, double c) {
  const double sd = 1 / std::sqrt(2 * dof);
  const double lo = std::max(1e-9, 1 - 12 * sd), hi = 1 + 12 * sd + 6 / dof;
  constexpr int kSteps = 400;  // even; Simpson is good to ~1e-9 here
  const double h = (hi - lo) / kSteps;
  double sum = 0;
  for (int i = 0; i <= kSteps; ++i) {
    const double s = lo + i * h;
    const double weight = (i == 0 || i == kSteps) ? 1 : (i % 2 ? 4 : 2);
    const double f = std::exp(log_scale_density(s, dof));
    sum += weight * f * (normal_cdf(ncp - c * s) + normal_cdf(-ncp - c * s));
  }
  return std::min(1.0, std::max(0.0, sum * h / 3));
}

// The noncentrality at which the power is `power`, by bisection.
double solve_mde_factor(double dof, double alpha, double power) {
  const double c = student_t_quantile(1 - alpha / 2, std::min(dof, kNormalDof));
  const auto power_at = [&](double ncp) {
    return dof > kNormalDof ? normal_cdf(ncp - c) + normal_cdf(-ncp - c)
                            : noncentral_tail_both(ncp, dof, c);
  };
  double hi = 1;
  while (power_at(hi) < power) {
    hi *= 2;
    if (hi > 1e6) return kInf;
  }
  double lo = 0;
  for (int i = 0; i < 80 && hi - lo > 1e-10 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (power_at(mid) < power ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double student_t_quantile(double p, double dof) {
  if (!(p > 0 && p < 1)) return p >= 1 ? kInf : -kInf;
  if (p < 0.5) return -student_t_quantile(1 - p, dof);
  if (p == 0.5) return 0;
  double hi = 1;
  while (student_t_cdf(hi, dof) < p && hi < 1e12) hi *= 2;
  double lo = 0;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * std::max(1.0, hi); ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, dof) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double t_test_power(double ncp, double dof, double alpha) {
  if (!(dof > 0)) return alpha;
  const double c = student_t_quantile(1 - alpha / 2, std::min(dof, kNormalDof));
  if (dof > kNormalDof) return normal_cdf(ncp - c) + normal_cdf(-ncp - c);
  return noncentral_tail_both(ncp, dof, c);
}

double mde_factor(double dof, double alpha, double power) {
  if (!(dof >= 1) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1)) return kInf;
  // Gates and the sweep's repetition rule ask for the same few (dof, alpha) again and again.
  thread_local std::map<std::tuple<double, double, double>, double> memo;
  const auto key = std::make_tuple(dof, alpha, power);
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  if (memo.size() > 4096) memo.clear();
  return memo[key] = solve_mde_factor(dof, alpha, power);
}

double smallest_p(TestKind resolved, size_t n_a, size_t n_b) {
  switch (resolved) {
    case TestKind::kMannWhitney: {
      const double a = static_cast<double>(n_a), b = static_cast<double>(n_b);
      if (n_a == 0 || n_b == 0) return 1;
      const double log_choose = std::lgamma(a + b + 1) - std::lgamma(a + 1) - std::lgamma(b + 1);
      return std::min(1.0, std::exp(std::log(2.0) - log_choose));
    }
    case TestKind::kSignedRank:
      return n_a == 0 ? 1 : std::min(1.0, std::exp((1 - static_cast<double>(n_a)) * std::log(2.0)));
    default:
      return 0;
  }
}

double cell_mde(TestKind resolved, const CellSpread& spread, double alpha, double power) {
  if (!std::isfinite(spread.se) || spread.se < 0) return kInf;
  if (smallest_p(resolved, spread.n_a, spread.n_b) >= alpha) return kInf;
  double factor = mde_factor(spread.dof, alpha, power);
  // A rank test needs 1/ARE times the samples of the t test: its effect sqrt(pi/3) times as large.
  if (resolved == TestKind::kMannWhitney || resolved == TestKind::kSignedRank)
    factor *= std::sqrt(M_PI / 3);
  return factor * spread.se;
}

double mde_slowdown(double log_effect) {
  return std::isfinite(log_effect) ? 1 - std::exp(-log_effect) : 1;
}

double log_effect_of_slowdown(double fraction) {
  return fraction >= 1 ? kInf : -std::log1p(-fraction);
}

}  // namespace moesweep
