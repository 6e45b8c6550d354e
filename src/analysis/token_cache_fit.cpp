#include "analysis/token_cache_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "results/stats.hpp"
#include "results/token_times.hpp"

namespace moesweep {
namespace {

constexpr double kChi2_1_95 = 3.841458820694124;

// Cross products of the demeaned position p, misses m and time y.
struct Moments {
  double pp = 0, pm = 0, mm = 0, py = 0, my = 0, yy = 0;
};

struct TwoFit {
  bool ok = false;
  double b = 0, c = 0, rss = 0;
};

// y on p and m (no intercepts: the data are demeaned within calls). Without
// spread in p (calls of one token) m alone.
TwoFit fit_two(const Moments& s) {
  TwoFit f;
  const double partial = s.pp > 0 ? s.mm - s.pm * s.pm / s.pp : s.mm;  // m's spread beyond p
  if (!(s.mm > 0) || !(partial > 1e-9 * s.mm)) return f;
  if (s.pp > 0) {
    const double det = s.pp * s.mm - s.pm * s.pm;
    f.b = (s.mm * s.py - s.pm * s.my) / det;
    f.c = (s.pp * s.my - s.pm * s.py) / det;
  } else {
    f.c = s.my / s.mm;
  }
  f.rss = std::max(0.0, s.yy - f.b * s.py - f.c * s.my);
  f.ok = true;
  return f;
}

double rss_null(const Moments& s) {
  return s.pp > 0 ? std::max(0.0, s.yy - s.py * s.py / s.pp) : s.yy;
}

// Each token's value less its call's mean.
std::vector<double> demeaned(const std::vector<double>& v, const std::vector<int>& call,
                             size_t groups) {
  std::vector<double> sum(groups, 0), n(groups, 0), out(v.size());
  for (size_t i = 0; i < v.size(); ++i) sum[call[i]] += v[i], n[call[i]] += 1;
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[i] - sum[call[i]] / n[call[i]];
  return out;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The slope of m's 95% interval at the best size, clusters = calls (CR1).
void robust_interval(const std::vector<double>& p, const std::vector<double>& m,
                     const std::vector<double>& y, const std::vector<int>& call, size_t groups,
                     const Moments& s, const TwoFit& f, CacheFit& out) {
  std::vector<double> gp(groups, 0), gm(groups, 0);
  for (size_t i = 0; i < y.size(); ++i) {
    const double u = y[i] - f.b * p[i] - f.c * m[i];
    gp[call[i]] += p[i] * u, gm[call[i]] += m[i] * u;
  }
  double spp = 0, spm = 0, smm = 0;  // the meat
  for (size_t g = 0; g < groups; ++g)
    spp += gp[g] * gp[g], spm += gp[g] * gm[g], smm += gm[g] * gm[g];
  double var = 0;
  if (s.pp > 0) {  // (X'X)^-1 meat (X'X)^-1, its (m, m) entry
    const double det = s.pp * s.mm - s.pm * s.pm;
    const double ip = -s.pm / det, im = s.pp / det;  // row m of the inverse
    var = ip * ip * spp + 2 * ip * im * spm + im * im * smm;
  } else {
    var = smm / (s.mm * s.mm);
  }
  const double g = static_cast<double>(groups);
  const double se = std::sqrt(std::max(0.0, var * g / std::max(1.0, g - 1)));
  const double t = student_t95(static_cast<int>(std::max<size_t>(1, groups - 1)));
  out.slope = f.c, out.slope_lo = f.c - t * se, out.slope_hi = f.c + t * se;
}

// The wild cluster bootstrap of sup-LR under the no-cache fit.
double bootstrap_p(const std::vector<double>& p, const std::vector<std::vector<double>>& m,
                   const std::vector<double>& y, const std::vector<int>& call, size_t groups,
                   const Moments& s0, const std::vector<Moments>& mom,
                   const std::vector<bool>& fitted, double lr, int reps, uint64_t seed) {
  const double b0 = s0.pp > 0 ? s0.py / s0.pp : 0;
  std::vector<double> e(y.size()), bp(groups, 0), ee(groups, 0);
  for (size_t i = 0; i < y.size(); ++i) e[i] = y[i] - b0 * p[i];
  for (size_t i = 0; i < y.size(); ++i) bp[call[i]] += p[i] * e[i], ee[call[i]] += e[i] * e[i];
  std::vector<std::vector<double>> a(m.size(), std::vector<double>(groups, 0));
  for (size_t k = 0; k < m.size(); ++k)
    if (fitted[k])
      for (size_t i = 0; i < y.size(); ++i) a[k][call[i]] += m[k][i] * e[i];
  double e_all = 0;
  for (double v : ee) e_all += v;
  std::mt19937_64 rng(seed);
  std::vector<double> w(groups);
  int as_large = 0;
  const double n = static_cast<double>(y.size());
  for (int r = 0; r < reps; ++r) {
    for (double& v : w) v = (rng() & 1) ? 1.0 : -1.0;
    Moments s = s0;
    const double wbp = dot(w, bp);
    s.py = b0 * s0.pp + wbp;
    s.yy = b0 * b0 * s0.pp + 2 * b0 * wbp + e_all;
    const double r0 = rss_null(s);
    double best = r0;
    for (size_t k = 0; k < m.size(); ++k) {
      if (!fitted[k]) continue;
      Moments sk = mom[k];
      sk.py = s.py, sk.yy = s.yy, sk.my = b0 * mom[k].pm + dot(w, a[k]);
      const TwoFit f = fit_two(sk);
      if (f.ok) best = std::min(best, f.rss);
    }
    if (best > 0 && n * std::log(r0 / best) >= lr) ++as_large;
  }
  return (1.0 + as_large) / (1.0 + reps);
}

// Each call's own moments at every size (demeaned within the call, so a
// resample's moments are the sums of its calls').
struct CallMoments {
  size_t n = 0;
  Moments null_part;           // pp, py, yy
  std::vector<Moments> sized;  // per size
};

std::vector<CallMoments> call_moments(const std::vector<double>& p,
                                      const std::vector<std::vector<double>>& m,
                                      const std::vector<double>& y, const std::vector<int>& call,
                                      size_t groups) {
  std::vector<CallMoments> g(groups);
  for (CallMoments& c : g) c.sized.resize(m.size());
  for (size_t i = 0; i < y.size(); ++i) {
    CallMoments& c = g[call[i]];
    ++c.n;
    c.null_part.pp += p[i] * p[i], c.null_part.py += p[i] * y[i], c.null_part.yy += y[i] * y[i];
    for (size_t k = 0; k < m.size(); ++k) {
      Moments& s = c.sized[k];
      s.pm += p[i] * m[k][i], s.mm += m[k][i] * m[k][i], s.my += m[k][i] * y[i];
    }
  }
  return g;
}

// The best size's index in one resample of the calls (-1: none fitted).
int resampled_best(const std::vector<CallMoments>& g, const std::vector<size_t>& pick,
                   size_t sizes) {
  Moments base;
  std::vector<Moments> sum(sizes);
  for (size_t c : pick) {
    const Moments& b = g[c].null_part;
    base.pp += b.pp, base.py += b.py, base.yy += b.yy;
    for (size_t k = 0; k < sizes; ++k) {
      const Moments& s = g[c].sized[k];
      sum[k].pm += s.pm, sum[k].mm += s.mm, sum[k].my += s.my;
    }
  }
  int best = -1;
  double best_rss = 0;
  for (size_t k = 0; k < sizes; ++k) {
    Moments s = base;
    s.pm = sum[k].pm, s.mm = sum[k].mm, s.my = sum[k].my;
    const TwoFit f = fit_two(s);
    if (f.ok && (best < 0 || f.rss < best_rss)) best = static_cast<int>(k), best_rss = f.rss;
  }
  return best;
}

// The 2.5 and 97.5 percentiles of the best S over resamples of the calls.
void bootstrap_sizes(const std::vector<double>& p, const std::vector<std::vector<double>>& m,
                     const std::vector<double>& y, const std::vector<int>& call, size_t groups,
                     int reps, uint64_t seed, CacheFit& f) {
  const std::vector<CallMoments> g = call_moments(p, m, y, call, groups);
  std::mt19937_64 rng(seed + 1);
  std::uniform_int_distribution<size_t> draw(0, groups - 1);
  std::vector<size_t> pick(groups);
  std::vector<uint64_t> best;
  for (int r = 0; r < reps; ++r) {
    for (size_t& c : pick) c = draw(rng);
    if (const int k = resampled_best(g, pick, m.size()); k >= 0) best.push_back(f.sizes[k].bytes);
  }
  if (best.empty()) return;
  std::sort(best.begin(), best.end());
  f.boot_lo_bytes = best[static_cast<size_t>(0.025 * static_cast<double>(best.size() - 1))];
  f.boot_hi_bytes =
      best[static_cast<size_t>(std::ceil(0.975 * static_cast<double>(best.size() - 1)))];
}

// The bootstrap's interval where it ran, else the profile's.
std::pair<uint64_t, uint64_t> verdict_interval(const CacheFit& f) {
  if (f.bootstrap > 0 && f.boot_hi_bytes > 0) return {f.boot_lo_bytes, f.boot_hi_bytes};
  return {f.lo_bytes, f.hi_bytes};
}

void profile_interval(CacheFit& f) {
  const double best_rss = f.sizes[f.best].rss;
  int lo = f.best, hi = f.best;
  for (int k = 0; k < static_cast<int>(f.sizes.size()); ++k) {
    const CacheFitSize& s = f.sizes[k];
    if (!s.fitted || !(best_rss > 0)) continue;
    if (static_cast<double>(f.tokens) * std::log(s.rss / best_rss) <= kChi2_1_95)
      lo = std::min(lo, k), hi = std::max(hi, k);
  }
  f.lo_bytes = f.sizes[lo].bytes, f.hi_bytes = f.sizes[hi].bytes;
}

}  // namespace

size_t drop_interrupted(CacheFitData& d, double factor) {
  if (factor <= 0 || d.y.empty()) return 0;
  std::map<int, std::vector<double>> by_call;
  for (size_t i = 0; i < d.y.size(); ++i) by_call[d.call[i]].push_back(d.y[i]);
  std::map<int, double> median;
  for (auto& [c, v] : by_call) {
    std::sort(v.begin(), v.end());
    median[c] = quantile_sorted(v, 0.5);
  }
  std::vector<size_t> keep;
  for (size_t i = 0; i < d.y.size(); ++i)
    if (!(d.y[i] > factor * median[d.call[i]])) keep.push_back(i);
  const size_t dropped = d.y.size() - keep.size();
  const auto select = [&](auto& v) {
    for (size_t k = 0; k < keep.size(); ++k) v[k] = v[keep[k]];
    v.resize(keep.size());
  };
  select(d.call), select(d.position), select(d.y);
  for (auto& m : d.miss) select(m);
  return dropped;
}

CacheFit fit_cache_size(const CacheFitData& d, int bootstrap, uint64_t seed) {
  CacheFit f;
  f.tokens = d.y.size();
  const size_t groups = d.call.empty() ? 0 : *std::max_element(d.call.begin(), d.call.end()) + 1;
  f.calls = groups;
  if (f.tokens == 0) return f;
  const std::vector<double> p = demeaned(d.position, d.call, groups);
  const std::vector<double> y = demeaned(d.y, d.call, groups);
  std::vector<std::vector<double>> m;
  std::vector<Moments> mom;
  std::vector<bool> fitted;
  Moments base{dot(p, p), 0, 0, dot(p, y), 0, dot(y, y)};
  f.rss0 = rss_null(base);
  f.position_slope0 = base.pp > 0 ? base.py / base.pp : 0;
  for (size_t k = 0; k < d.sizes.size(); ++k) {
    m.push_back(demeaned(d.miss[k], d.call, groups));
    Moments s = base;
    s.pm = dot(p, m.back()), s.mm = dot(m.back(), m.back()), s.my = dot(m.back(), y);
    mom.push_back(s);
    const TwoFit t = fit_two(s);
    CacheFitSize z{d.sizes[k], t.ok, t.rss, t.c, 0};
    if (t.ok && t.rss > 0 && f.rss0 > 0)
      z.lr = static_cast<double>(f.tokens) * std::log(f.rss0 / t.rss);
    fitted.push_back(t.ok);
    if (t.ok && (f.best < 0 || z.lr > f.sizes[f.best].lr)) f.best = static_cast<int>(k);
    f.sizes.push_back(z);
  }
  if (f.best < 0) return f;
  f.lr = f.sizes[f.best].lr;
  profile_interval(f);
  robust_interval(p, m[f.best], y, d.call, groups, mom[f.best], fit_two(mom[f.best]), f);
  if (bootstrap > 0) {
    f.p_value = bootstrap_p(p, m, y, d.call, groups, base, mom, fitted, f.lr, bootstrap, seed);
    bootstrap_sizes(p, m, y, d.call, groups, bootstrap, seed, f);
    f.bootstrap = bootstrap;
  }
  const auto [lo, hi] = verdict_interval(f);
  f.interval_at_edge_lo = lo == f.sizes.front().bytes;
  f.interval_at_edge_hi = hi == f.sizes.back().bytes;
  return f;
}

std::vector<uint64_t> log_spaced_sizes(uint64_t lo, uint64_t hi, int per_doubling) {
  std::vector<uint64_t> out;
  const int steps =
      static_cast<int>(std::lround(std::log2(static_cast<double>(hi) / lo) * per_doubling));
  for (int i = 0; i <= steps; ++i)
    out.push_back(static_cast<uint64_t>(
        std::llround(static_cast<double>(lo) * std::exp2(static_cast<double>(i) / per_doubling))));
  return out;
}

}  // namespace moesweep

namespace moesweep {
namespace {

std::string mib(uint64_t bytes) {
  return fmt::format("{:.3g} MiB", static_cast<double>(bytes) / (1 << 20));
}

// "S between A and B" with the grid's ends said as bounds.
std::string interval_words(const CacheFit& f, uint64_t lo, uint64_t hi) {
  if (lo == hi) return fmt::format("at {}", mib(lo));
  if (f.interval_at_edge_lo && f.interval_at_edge_hi)
    return fmt::format("anywhere in the grid ({} to {})", mib(lo), mib(hi));
  if (f.interval_at_edge_lo)
    return fmt::format("at most {} (the grid starts at {})", mib(hi), mib(lo));
  if (f.interval_at_edge_hi)
    return fmt::format("at least {} (the grid ends at {})", mib(lo), mib(hi));
  return fmt::format("between {} and {}", mib(lo), mib(hi));
}

std::string size_range(const CacheFit& f) {
  const auto [lo, hi] = verdict_interval(f);
  const std::string how =
      f.bootstrap > 0 && f.boot_hi_bytes > 0 ? "95%, cluster bootstrap" : "95% profile interval";
  return interval_words(f, lo, hi) + " (" + how + ")";
}

// The slope in words: time per MB missed and the bandwidth it means, or bytes per byte.
std::string slope_words(const CacheFit& f, const std::string& unit) {
  if (unit == "B")
    return fmt::format("{:.3f} simulated LL-miss bytes per byte predicted missed [{:.3f}, {:.3f}]",
                       f.slope, f.slope_lo, f.slope_hi);
  const auto bw = [](double s_per_byte) { return 1e-9 / s_per_byte; };
  std::string text = fmt::format("{:.4g} ms per MB missed [{:.4g}, {:.4g}]", f.slope * 1e9,
                                 f.slope_lo * 1e9, f.slope_hi * 1e9);
  if (f.slope_lo > 0)
    text += fmt::format(", misses read at {:.3g} GB/s [{:.3g}, {:.3g}]", bw(f.slope),
                        bw(f.slope_hi), bw(f.slope_lo));
  else if (f.slope > 0)
    text +=
        fmt::format(", misses read at {:.3g} GB/s (at least {:.3g})", bw(f.slope), bw(f.slope_hi));
  return text;
}

}  // namespace

std::string cache_fit_verdict(const CacheFit& f, const std::string& unit) {
  if (f.best < 0)
    return "no size could be fitted: at every size the model predicts the same misses for every "
           "token of a call, so the routing gives the times nothing to explain";
  const std::string test =
      f.bootstrap > 0
          ? fmt::format("sup-LR {:.1f}, p = {:.3g} ({} wild cluster bootstrap resamples)", f.lr,
                        f.p_value, f.bootstrap)
          : fmt::format("sup-LR {:.1f}, p not computed", f.lr);
  if (f.bootstrap == 0 || f.p_value >= 0.05)
    return fmt::format("no evidence that a cache helps expert reads ({}); best S {} if any", test,
                       mib(f.sizes[f.best].bytes));
  if (f.slope_lo <= 0)
    return fmt::format(
        "a cache term fits better ({}), but its slope is not above zero ({}): "
        "no cache effect in the direction a cache would have",
        test, slope_words(f, unit));
  return fmt::format("S {} (best {}), {}; {}", size_range(f), mib(f.sizes[f.best].bytes),
                     slope_words(f, unit), test);
}

nlohmann::json to_json(const CacheFit& f) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const CacheFitSize& s : f.sizes)
    sizes.push_back({{"bytes", s.bytes},
                     {"fitted", s.fitted},
                     {"rss", s.rss},
                     {"slope", s.slope},
                     {"lr", s.lr}});
  nlohmann::json j = {{"tokens", f.tokens},     {"calls", f.calls},
                      {"rss_no_cache", f.rss0}, {"position_slope_no_cache", f.position_slope0},
                      {"sizes", sizes},         {"lr", f.lr},
                      {"p_value", f.p_value},   {"bootstrap", f.bootstrap},
                      {"verdict", f.verdict}};
  if (f.best >= 0) {
    j["best_bytes"] = f.sizes[f.best].bytes;
    j["profile_interval_bytes"] = {f.lo_bytes, f.hi_bytes};
    if (f.bootstrap > 0) j["bootstrap_interval_bytes"] = {f.boot_lo_bytes, f.boot_hi_bytes};
    j["interval_at_grid_edge"] = {f.interval_at_edge_lo, f.interval_at_edge_hi};
    j["slope"] = f.slope;
    j["slope_ci95"] = {f.slope_lo, f.slope_hi};
  }
  return j;
}

}  // namespace moesweep
