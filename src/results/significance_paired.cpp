// The paired tests of results/significance.hpp: on the per-pair log ratios of
// samples taken side by side (one run's engines, ABBA turns).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "results/significance.hpp"

namespace moesweep {
namespace {

// Counts of W+ = 0..n(n+1)/2 over the 2^n sign patterns of ranks 1..n: the
// coefficients of prod_{i=1..n} (1 + q^i). Up to n = 50 the counts (at most
// 2^50) are exact in doubles.
std::vector<double> signed_rank_distribution(int n) {
  const int top = n * (n + 1) / 2;
  std::vector<double> c(static_cast<size_t>(top) + 1, 0.0);
  c[0] = 1;
  for (int i = 1; i <= n; ++i)
    for (int k = top; k >= i; --k) c[k] += c[k - i];
  return c;
}

}  // namespace

std::vector<double> pair_log_ratios(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d;
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] > 0 && b[i] > 0) d.push_back(std::log(b[i] / a[i]));
  return d;
}

TestResult paired_t_test(const std::vector<double>& d) {
  TestResult r;
  const size_t n = d.size();
  if (n < 2) return r;
  const double mean = std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(n);
  double sq = 0;
  for (double x : d) sq += (x - mean) * (x - mean);
  const double sd = std::sqrt(sq / static_cast<double>(n - 1));
  r.dof = static_cast<double>(n - 1);
  if (sd <= 0) {  // every pair the same: a non-zero difference is certain, a zero one is not
    r.p_value = mean == 0 ? 1.0 : 0.0;
    r.statistic = mean == 0 ? 0.0 : (mean > 0 ? INFINITY : -INFINITY);
    return r;
  }
  r.statistic = mean / (sd / std::sqrt(static_cast<double>(n)));
  r.p_value = std::min(1.0, 2 * student_t_cdf(-std::fabs(r.statistic), r.dof));
  return r;
}

TestResult signed_rank_test(const std::vector<double>& d) {
  TestResult r;
  std::vector<double> nonzero;  // zero differences carry no sign: left out (Wilcoxon's way)
  for (double x : d)
    if (x != 0) nonzero.push_back(x);
  const size_t n = nonzero.size();
  if (n == 0) return r;
  std::sort(nonzero.begin(), nonzero.end(),
            [](double x, double y) { return std::fabs(x) < std::fabs(y); });
  double w_plus = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && std::fabs(nonzero[j + 1]) == std::fabs(nonzero[i])) ++j;
    const double midrank = (static_cast<double>(i + j) + 2) / 2;  // 1-based ranks
    const double group = static_cast<double>(j - i + 1);
    ties = ties || group > 1;
    tie_term += group * group * group - group;
    for (size_t k = i; k <= j; ++k)
      if (nonzero[k] > 0) w_plus += midrank;
    i = j + 1;
  }
  const double dn = static_cast<double>(n);
  const double total = dn * (dn + 1) / 2;
  r.statistic = std::min(w_plus, total - w_plus);
  if (!ties && n <= 50 && n == d.size()) {
    const auto counts = signed_rank_distribution(static_cast<int>(n));
    const double all = std::ldexp(1.0, static_cast<int>(n));
    const int w = static_cast<int>(std::lround(r.statistic));  // the smaller tail
    double below = 0;
    for (int k = 0; k <= w; ++k) below += counts[k];
    r.p_value = std::min(1.0, 2 * below / all);
    r.exact = true;
    return r;
  }
  const double mean = total / 2;
  const double var = dn * (dn + 1) * (2 * dn + 1) / 24 - tie_term / 48;
  if (var <= 0) return r;
  const double z = (std::fabs(w_plus - mean) - 0.5) / std::sqrt(var);  // continuity corrected
  r.p_value = std::min(1.0, 2 * (1 - normal_cdf(std::max(0.0, z))));
  return r;
}

}  // namespace moesweep
