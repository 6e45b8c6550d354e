#include "report/cliff_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace moesweep {
namespace {

constexpr int kPositionSteps = 160;
constexpr double kWidths[] = {0.01, 0.03, 0.06, 0.1, 0.15, 0.22, 0.33, 0.5, 0.75};

double step_share(double lnx, double ln_x0, double w) {
  return 1 / (1 + std::exp((lnx - ln_x0) / w));  // 1 well below x0, 0 well above
}

// The samples of one pool size, as sums: the fit only ever needs these.
struct Level {
  double lnx = 0, n = 0, sy = 0, syy = 0;
};

std::vector<Level> levels_of(const std::vector<CliffSample>& samples) {
  std::map<double, Level> by_x;
  for (const CliffSample& s : samples) {
    Level& l = by_x[s.x];
    l.lnx = std::log(s.x);
    l.n += 1, l.sy += s.y, l.syy += s.y * s.y;
  }
  std::vector<Level> out;
  for (const auto& [x, l] : by_x) out.push_back(l);
  return out;
}

// hi, lo and the squared error for one (x0, w): linear least squares in (lo, hi).
CliffCurve solve(const std::vector<Level>& levels, double ln_x0, double w) {
  double a = 0, b = 0, c = 0, py = 0, qy = 0;  // sums of f^2, f(1-f), (1-f)^2, f y, (1-f) y
  std::vector<double> f(levels.size());
  for (size_t i = 0; i < levels.size(); ++i) {
    const Level& l = levels[i];
    f[i] = step_share(l.lnx, ln_x0, w);
    const double g = 1 - f[i];
    a += l.n * f[i] * f[i], b += l.n * f[i] * g, c += l.n * g * g;
    py += f[i] * l.sy, qy += g * l.sy;
  }
  CliffCurve k{std::exp(ln_x0), w, 0, 0, std::numeric_limits<double>::infinity()};
  const double det = a * c - b * b;
  if (std::abs(det) < 1e-12 * (a * c + 1e-300)) return k;
  k.hi = (py * c - qy * b) / det;
  k.lo = (qy * a - py * b) / det;
  k.sse = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    const Level& l = levels[i];
    const double fit = k.lo + (k.hi - k.lo) * f[i];
    k.sse += l.syy - 2 * fit * l.sy + l.n * fit * fit;
  }
  return k;
}

Interval percentile_interval(double value, std::vector<double> draws) {
  Interval iv{value, value, value};
  draws.erase(
      std::remove_if(draws.begin(), draws.end(), [](double d) { return !std::isfinite(d); }),
      draws.end());
  if (draws.size() < 20) return iv;
  std::sort(draws.begin(), draws.end());
  auto q = [&](double p) { return draws[static_cast<size_t>(p * (draws.size() - 1))]; };
  iv.lo = q(0.025);
  iv.hi = q(0.975);
  return iv;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

double CliffCurve::at(double x) const {
  return lo + (hi - lo) * step_share(std::log(x), std::log(x0), width);
}

CliffCurve fit_cliff(const std::vector<CliffSample>& samples) {
  const std::vector<Level> levels = levels_of(samples);
  CliffCurve best{};
  best.sse = std::numeric_limits<double>::infinity();
  if (levels.size() < 2) return best;
  const double mn = levels.front().lnx, mx = levels.back().lnx;
  for (int i = 0; i <= kPositionSteps; ++i) {
    const double ln_x0 = mn + (mx - mn) * i / kPositionSteps;
    for (double w : kWidths) {
      const CliffCurve k = solve(levels, ln_x0, w);
      if (k.sse < best.sse) best = k;
    }
  }
  return best;
}

CliffResult analyse_cliff(const std::vector<CliffSample>& samples, const std::vector<double>& dense,
                          int bootstrap, uint64_t seed) {
  CliffResult r;
  r.fit = fit_cliff(samples);
  r.bootstrap = bootstrap;
  std::map<double, std::vector<double>> by_x;  // resampled within each pool size
  for (const CliffSample& s : samples) by_x[s.x].push_back(s.y);
  std::mt19937_64 rng(seed);
  std::vector<double> pos, drop, ratio, d_in, d_out;
  std::vector<CliffSample> draw;
  for (int b = 0; b < bootstrap; ++b) {
    draw.clear();
    for (const auto& [x, ys] : by_x)
      for (size_t i = 0; i < ys.size(); ++i) draw.push_back({x, ys[rng() % ys.size()]});
    const CliffCurve k = fit_cliff(draw);
    pos.push_back(k.x0);
    drop.push_back(k.hi != 0 ? 1 - k.lo / k.hi : 0);
    ratio.push_back(k.lo != 0 ? k.hi / k.lo : 0);
    if (!dense.empty()) {
      std::vector<double> d;
      for (size_t i = 0; i < dense.size(); ++i) d.push_back(dense[rng() % dense.size()]);
      d_in.push_back(mean_of(d) / k.hi);
      d_out.push_back(mean_of(d) / k.lo);
    }
  }
  const CliffCurve& f = r.fit;
  r.position = percentile_interval(f.x0, pos);
  r.drop = percentile_interval(f.hi != 0 ? 1 - f.lo / f.hi : 0, drop);
  r.ratio = percentile_interval(f.lo != 0 ? f.hi / f.lo : 0, ratio);
  if (!dense.empty()) {
    r.dense_over_in_cache = percentile_interval(mean_of(dense) / f.hi, d_in);
    r.dense_over_out_of_cache = percentile_interval(mean_of(dense) / f.lo, d_out);
  }
  const double x_min = by_x.empty() ? 0 : by_x.begin()->first;
  const double x_max = by_x.empty() ? 0 : by_x.rbegin()->first;
  r.resolved = bootstrap > 0 && r.drop.lo > 0 && f.x0 > x_min && f.x0 < x_max;
  return r;
}

}  // namespace moesweep
