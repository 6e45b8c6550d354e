#include "results/token_times.hpp"

#include <algorithm>
#include <cmath>

#include "results/power.hpp"
#include "results/significance.hpp"
#include "results/stats.hpp"

namespace moesweep {
namespace {

// Sums of the within-call regression of time on index.
struct WithinCall {
  double sxx = 0, sxy = 0, syy = 0;
  int64_t n = 0;
  int groups = 0;
  void add(const std::vector<int64_t>& ns) {
    const double m = static_cast<double>(ns.size());
    const double mx = (m - 1) / 2;
    double my = 0;
    for (int64_t t : ns) my += static_cast<double>(t) * 1e-9;
    my /= m;
    for (size_t i = 0; i < ns.size(); ++i) {
      const double dx = static_cast<double>(i) - mx, dy = static_cast<double>(ns[i]) * 1e-9 - my;
      sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
    }
    n += static_cast<int64_t>(ns.size());
    ++groups;
  }
};

void fit_slope(const WithinCall& w, TokenTimeSummary& s) {
  const int64_t dof = w.n - w.groups - 1;
  if (w.sxx <= 0 || dof < 1) return;
  s.slope_s = w.sxy / w.sxx;
  const double rss = std::max(0.0, w.syy - s.slope_s * w.sxy);
  const double se = std::sqrt(rss / static_cast<double>(dof) / w.sxx);
  const double t = student_t95(static_cast<int>(std::min<int64_t>(dof, 1 << 30)));
  s.slope_lo_s = s.slope_s - t * se, s.slope_hi_s = s.slope_s + t * se;
  s.has_slope = true;
}

}  // namespace

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double h = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

TokenTimeSummary summarize_token_times(const std::vector<std::vector<int64_t>>& calls) {
  TokenTimeSummary s;
  std::vector<double> all;
  WithinCall w;
  for (const std::vector<int64_t>& ns : calls) {
    if (ns.empty()) continue;
    for (int64_t t : ns) all.push_back(static_cast<double>(t) * 1e-9);
    w.add(ns);
    ++s.calls;
  }
  if (all.empty()) return s;
  s.tokens = static_cast<int64_t>(all.size());
  double sum = 0;
  for (double t : all) sum += t;
  s.mean_s = sum / static_cast<double>(all.size());
  std::sort(all.begin(), all.end());
  s.p50_s = quantile_sorted(all, 0.5);
  s.p90_s = quantile_sorted(all, 0.9);
  s.p99_s = quantile_sorted(all, 0.99);
  s.max_s = all.back();
  fit_slope(w, s);
  return s;
}

nlohmann::json to_json(const TokenTimeSummary& s) {
  nlohmann::json j = {{"tokens", s.tokens},        {"calls", s.calls},
                      {"mean_ms", s.mean_s * 1e3}, {"p50_ms", s.p50_s * 1e3},
                      {"p90_ms", s.p90_s * 1e3},   {"p99_ms", s.p99_s * 1e3},
                      {"max_ms", s.max_s * 1e3}};
  if (s.has_slope) {
    j["slope_us_per_position"] = s.slope_s * 1e6;
    j["slope_ci95_us"] = {s.slope_lo_s * 1e6, s.slope_hi_s * 1e6};
  }
  return j;
}

PairedEffect paired_effect(const std::vector<double>& a, const std::vector<double>& b) {
  PairedEffect e;
  const std::vector<double> d = pair_log_ratios(b, a);  // log(a_i / b_i)
  e.pairs = static_cast<int>(d.size());
  if (d.empty()) return e;
  const Stats st = Stats::of(d);
  e.effect = std::exp(st.mean) - 1;
  e.lo = std::exp(st.mean - st.ci95) - 1, e.hi = std::exp(st.mean + st.ci95) - 1;
  if (d.size() < 2) return e;
  const double dof = static_cast<double>(d.size() - 1);
  const double se = st.sd / std::sqrt(static_cast<double>(d.size()));
  e.mde = mde_slowdown(mde_factor(dof, 0.05) * se);
  e.p_value = paired_t_test(d).p_value;
  return e;
}

nlohmann::json to_json(const PairedEffect& e) {
  return {{"pairs", e.pairs},
          {"faster_pct", 100 * e.effect},
          {"ci95_pct", {100 * e.lo, 100 * e.hi}},
          {"mde_pct", 100 * e.mde},
          {"p_value", e.p_value}};
}

}  // namespace moesweep
