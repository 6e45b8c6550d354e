#include "results/significance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "results/power.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// Continued fraction for the incomplete beta function (Lentz's method).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    c = 1 + aa / c;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
    c = std::fabs(c) < kTiny ? kTiny : c;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    c = 1 + aa / c;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
    c = std::fabs(c) < kTiny ? kTiny : c;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return h;
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v, double mean) {
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  return sq / static_cast<double>(v.size() - 1);
}

// Counts of U = 0..m*n over all C(m+n, m) arrangements without ties: the
// coefficients of the Gaussian binomial [m+n choose m](q), built as
// prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
std::vector<double> u_distribution(int m, int n) {
  const int top = m * n;
  std::vector<double> c(static_cast<size_t>(top) + 1, 0.0);
  c[0] = 1;
  for (int i = 1; i <= m; ++i) {
    for (int k = top; k >= n + i; --k) c[k] -= c[k - n - i];  // * (1 - q^(n+i))
    for (int k = i; k <= top; ++k) c[k] += c[k - i];          // / (1 - q^i)
  }
  return c;
}

}  // namespace

double student_t_cdf(double t, double dof) {
  const double x = dof / (dof + t * t);
  const double tail = 0.5 * regularized_incomplete_beta(dof / 2, 0.5, x);
  return t >= 0 ? 1 - tail : tail;
}

TestResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  TestResult r;
  if (a.size() < 2 || b.size() < 2) return r;
  const double ma = mean_of(a), mb = mean_of(b);
  const double va = variance_of(a, ma) / static_cast<double>(a.size());
  const double vb = variance_of(b, mb) / static_cast<double>(b.size());
  const double se2 = va + vb;
  if (se2 <= 0) {  // both sides constant: different means are certain, equal ones are not
    r.p_value = ma == mb ? 1.0 : 0.0;
    r.statistic = ma == mb ? 0.0 : (ma > mb ? INFINITY : -INFINITY);
    return r;
  }
  r.statistic = (ma - mb) / std::sqrt(se2);
  r.dof =
      se2 * se2 /
      (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  r.p_value = std::min(1.0, 2 * student_t_cdf(-std::fabs(r.statistic), r.dof));
  return r;
}

TestResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  TestResult r;
  const size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return r;
  // Midranks of the pooled samples; tie groups feed the variance correction.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a) pooled.push_back({x, 0});
  for (double x : b) pooled.push_back({x, 1});
  std::sort(pooled.begin(), pooled.end());
  const size_t total = pooled.size();
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j + 1 < total && pooled[j + 1].first == pooled[i].first) ++j;
    const double midrank = (static_cast<double>(i + j) + 2) / 2;  // 1-based ranks
    const double group = static_cast<double>(j - i + 1);
    if (group > 1) ties = true;
    tie_term += group * group * group - group;
    for (size_t k = i; k <= j; ++k) {
      if (pooled[k].second == 0) rank_sum_a += midrank;
    }
    i = j + 1;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  r.statistic = rank_sum_a - dm * (dm + 1) / 2;  // U of sample a
  // Exact up to 40 samples in all: counts stay below C(40,20) ~ 1.4e11, so the
  // doubles of the generating function hold them to far better than one count.
  if (!ties && m + n <= 40) {
    const auto counts = u_distribution(static_cast<int>(m), static_cast<int>(n));
    const double all = std::accumulate(counts.begin(), counts.end(), 0.0);
    const int u = static_cast<int>(std::lround(r.statistic));
    double below = 0, above = 0;
    for (int k = 0; k <= u; ++k) below += counts[k];
    for (size_t k = static_cast<size_t>(u); k < counts.size(); ++k) above += counts[k];
    r.p_value = std::min(1.0, 2 * std::min(below, above) / all);
    r.exact = true;
    return r;
  }
  const double mu = dm * dn / 2;
  const double var = dm * dn / 12 * ((dm + dn + 1) - tie_term / ((dm + dn) * (dm + dn - 1)));
  if (var <= 0) return r;                                                 // every sample equal
  const double z = (std::fabs(r.statistic - mu) - 0.5) / std::sqrt(var);  // continuity corrected
  r.p_value = std::min(1.0, 2 * (1 - normal_cdf(std::max(0.0, z))));
  return r;
}

TestKind parse_test_kind(const std::string& name) {
  if (name == "auto") return TestKind::kAuto;
  if (name == "welch") return TestKind::kWelch;
  if (name == "mwu" || name == "mann-whitney") return TestKind::kMannWhitney;
  if (name == "paired-t" || name == "paired") return TestKind::kPairedT;
  if (name == "signed-rank" || name == "wilcoxon") return TestKind::kSignedRank;
  throw UserError("unknown test '" + name + "'", "auto, welch, mwu, paired-t or signed-rank",
                  "pass --test auto (paired t on the pairs of one run's engines; else "
                  "Mann-Whitney from 4 samples a side, Welch below)");
}

bool is_paired(TestKind kind) {
  return kind == TestKind::kPairedT || kind == TestKind::kSignedRank;
}

TestKind resolve_test_kind(TestKind kind, size_t n_a, size_t n_b, bool paired, double alpha) {
  if (kind == TestKind::kAuto && paired) return TestKind::kPairedT;
  if (kind != TestKind::kAuto && (paired || !is_paired(kind))) return kind;
  const bool reaches = smallest_p(TestKind::kMannWhitney, n_a, n_b) < alpha;
  return std::min(n_a, n_b) >= 4 && reaches ? TestKind::kMannWhitney : TestKind::kWelch;
}

const char* test_kind_name(TestKind kind) {
  switch (kind) {
    case TestKind::kAuto:
      return "auto";
    case TestKind::kWelch:
      return "welch";
    case TestKind::kMannWhitney:
      return "mwu";
    case TestKind::kPairedT:
      return "paired-t";
    case TestKind::kSignedRank:
      return "signed-rank";
  }
  return "?";
}

TestResult run_test(TestKind resolved, const std::vector<double>& a, const std::vector<double>& b) {
  switch (resolved) {
    case TestKind::kMannWhitney:
      return mann_whitney_u(a, b);
    case TestKind::kPairedT:
      return paired_t_test(pair_log_ratios(a, b));
    case TestKind::kSignedRank:
      return signed_rank_test(pair_log_ratios(a, b));
    default:
      return welch_t_test(a, b);
  }
}

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

}  // namespace moesweep
