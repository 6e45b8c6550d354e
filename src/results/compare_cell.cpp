// One compared cell of results/compare.hpp: its test (paired on the pairs of
// one run's engines, unpaired otherwise), the ratio with its 95% CI, the
// spread the MDE is computed from, and the verdict.
#include <algorithm>
#include <cmath>
#include <limits>

#include "results/compare.hpp"
#include "results/stats.hpp"

namespace moesweep {
namespace {

// Unpaired: new/base of the means with its 95% CI by the delta method,
// var(log r) ~ sd_b^2/(n_b m_b^2) + sd_n^2/(n_n m_n^2), Welch-Satterthwaite dof.
void unpaired_ratio(MetricComparison& m, const Stats& b, const Stats& n) {
  m.ratio = n.mean / b.mean;
  const double vb = b.sd * b.sd / (b.n * b.mean * b.mean);
  const double vn = n.sd * n.sd / (n.n * n.mean * n.mean);
  const double denom = vb * vb / (b.n - 1) + vn * vn / (n.n - 1);
  const double dof = denom > 0 ? (vb + vn) * (vb + vn) / denom : b.n + n.n - 2;
  m.spread = {std::sqrt(vb + vn), std::max(1.0, dof), static_cast<size_t>(b.n),
              static_cast<size_t>(n.n)};
}

// Paired: the geometric mean of the pairs' ratios, and the t interval of the
// mean log ratio (n - 1 dof).
void paired_ratio(MetricComparison& m, const std::vector<double>& d) {
  const Stats s = Stats::of(d);
  m.ratio = std::exp(s.mean);
  m.spread = {s.sd / std::sqrt(static_cast<double>(s.n)), static_cast<double>(s.n - 1),
              static_cast<size_t>(s.n), static_cast<size_t>(s.n)};
}

}  // namespace

MetricComparison compare_metric(Metric metric, const PhaseResult& base, const PhaseResult& fresh,
                                const CompareOptions& options, bool pairs, double cell_alpha) {
  MetricComparison m;
  m.metric = metric;
  const Stats b = Stats::of(base.tokens_per_s), n = Stats::of(fresh.tokens_per_s);
  m.n_base = b.n;
  m.n_new = n.n;
  m.base_mean = b.mean;
  m.new_mean = n.mean;
  m.base_sd = b.sd;
  m.new_sd = n.sd;
  m.ratio = b.mean > 0 ? n.mean / b.mean : 0;
  if (b.n < 2 || n.n < 2 || b.mean <= 0 || n.mean <= 0) {
    m.verdict = Verdict::kUntestable;
    return m;
  }
  const std::vector<double> d = pair_log_ratios(base.tokens_per_s, fresh.tokens_per_s);
  // Pairs only where every repetition has its partner (a --target-ci run may
  // have taken more on one side).
  const bool have_pairs = pairs && b.n == n.n && d.size() == static_cast<size_t>(b.n);
  m.test = resolve_test_kind(options.test, b.n, n.n, have_pairs,
                             cell_alpha > 0 ? cell_alpha : options.alpha);
  m.paired = is_paired(m.test);
  if (m.paired)
    paired_ratio(m, d);
  else
    unpaired_ratio(m, b, n);
  const double half = student_t_quantile(0.975, m.spread.dof) * m.spread.se;
  m.ratio_lo = m.ratio * std::exp(-half);
  m.ratio_hi = m.ratio * std::exp(half);
  m.result = run_test(m.test, base.tokens_per_s, fresh.tokens_per_s);
  m.p_family = m.result.p_value;
  m.alpha = options.alpha;
  set_verdict(m, options.alpha, options.threshold);
  return m;
}

void set_verdict(MetricComparison& m, double alpha, double threshold) {
  // A NaN or an infinity in the ratio, its interval or its test says
  // nothing: it never reaches a verdict (untestable: the gate is inconclusive).
  const bool finite = std::isfinite(m.ratio) && std::isfinite(m.ratio_lo) &&
                      std::isfinite(m.ratio_hi) && std::isfinite(m.spread.se) &&
                      !std::isnan(m.p_family);
  if (m.n_base < 2 || m.n_new < 2 || m.ratio_hi <= 0 || !finite) {
    m.verdict = Verdict::kUntestable;
    m.mde = std::numeric_limits<double>::infinity();
    return;
  }
  m.mde = cell_mde(m.test, m.spread, m.alpha);
  constexpr double kEps = 1e-12;  // 0.95 computed in floating point still reaches 5%
  if (m.p_family < alpha) {
    if (m.ratio < 1)
      m.verdict = m.ratio_lo <= 1 - threshold + kEps ? Verdict::kRegression : Verdict::kSmall;
    else
      m.verdict = m.ratio_hi >= 1 + threshold - kEps ? Verdict::kImprovement : Verdict::kSmall;
    return;
  }
  m.verdict = mde_slowdown(m.mde) <= threshold + kEps ? Verdict::kNoise : Verdict::kInconclusive;
}

}  // namespace moesweep
