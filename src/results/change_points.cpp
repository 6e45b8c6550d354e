#include "results/change_points.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "results/power.hpp"
#include "util/error.hpp"
#include "util/seeded_shuffle.hpp"

namespace moesweep {
namespace {

using Samples = std::vector<std::vector<double>>;  // per release

// The sums of |z_i - z_j| between the samples of every two releases, as 2-D
// prefix sums, so each segment's energy statistic costs O(1).
class EnergyBlocks {
 public:
  explicit EnergyBlocks(const Samples& logs) : n_(logs.size() + 1, 0) {
    const size_t k = logs.size();
    for (size_t r = 0; r < k; ++r) n_[r + 1] = n_[r] + logs[r].size();
    p_.assign(k + 1, std::vector<double>(k + 1, 0));
    for (size_t a = 0; a < k; ++a)
      for (size_t b = 0; b < k; ++b) {
        double w = 0;
        for (double x : logs[a])
          for (double y : logs[b]) w += std::fabs(x - y);
        p_[a + 1][b + 1] = w + p_[a][b + 1] + p_[a + 1][b] - p_[a][b];
      }
  }

  // Matteson and James's Q-hat (alpha = 1) of releases [s, tau) against [tau, kappa).
  double q(size_t s, size_t tau, size_t kappa) const {
    const double nx = static_cast<double>(n_[tau] - n_[s]);
    const double ny = static_cast<double>(n_[kappa] - n_[tau]);
    const double between = rect(s, tau, tau, kappa);
    const double within_x = nx > 1 ? rect(s, tau, s, tau) / (nx * (nx - 1)) : 0;
    const double within_y = ny > 1 ? rect(tau, kappa, tau, kappa) / (ny * (ny - 1)) : 0;
    const double energy = 2 * between / (nx * ny) - within_x - within_y;
    return nx * ny / (nx + ny) * energy;
  }

 private:
  double rect(size_t a0, size_t a1, size_t b0, size_t b1) const {
    return p_[a1][b1] - p_[a0][b1] - p_[a1][b0] + p_[a0][b0];
  }
  std::vector<size_t> n_;
  std::vector<std::vector<double>> p_;
};

struct Candidate {
  size_t tau = 0;
  double q = -INFINITY;
};

// The best split of any segment between the cuts (sorted, 0 and n included).
Candidate best_split(const EnergyBlocks& e, const std::vector<size_t>& cuts) {
  Candidate best;
  for (size_t c = 0; c + 1 < cuts.size(); ++c)
    for (size_t tau = cuts[c] + 1; tau < cuts[c + 1]; ++tau)
      for (size_t kappa = tau + 1; kappa <= cuts[c + 1]; ++kappa)
        if (const double q = e.q(cuts[c], tau, kappa); q > best.q) best = {tau, q};
  return best;
}

// The slots' values shuffled among them (seeded_shuffle, on the values).
void fisher_yates(std::vector<double*>& slots, std::mt19937_64& rng) {
  for (size_t i = slots.size(); i > 1; --i) std::swap(*slots[i - 1], *slots[uniform_below(rng, i)]);
}

// Each segment's samples shuffled among its releases: repetition by
// repetition where every release of it has as many, all of them otherwise.
void shuffle_within(Samples& logs, const std::vector<size_t>& cuts, std::mt19937_64& rng) {
  for (size_t c = 0; c + 1 < cuts.size(); ++c) {
    const size_t s = cuts[c], e = cuts[c + 1];
    bool blocked = true;
    for (size_t r = s; r < e; ++r) blocked = blocked && logs[r].size() == logs[s].size();
    const size_t blocks = blocked ? logs[s].size() : 1;
    for (size_t k = 0; k < blocks; ++k) {
      std::vector<double*> slots;
      for (size_t r = s; r < e; ++r)
        for (size_t i = 0; i < logs[r].size(); ++i)
          if (!blocked || i == k) slots.push_back(&logs[r][i]);
      fisher_yates(slots, rng);
    }
  }
}

double permutation_p(const Samples& logs, const std::vector<size_t>& cuts, double observed,
                     const EDivisiveOptions& o, std::mt19937_64& rng) {
  int as_large = 0;
  Samples shuffled = logs;
  for (int i = 0; i < o.permutations; ++i) {
    shuffle_within(shuffled, cuts, rng);
    as_large += best_split(EnergyBlocks(shuffled), cuts).q >= observed * (1 - 1e-12);
  }
  return (as_large + 1.0) / (o.permutations + 1.0);
}

struct Moments {
  double mean = 0, var = 0;
  size_t n = 0;
};
Moments moments(const Samples& logs, size_t from, size_t to) {
  Moments m;
  for (size_t r = from; r < to; ++r)
    for (double x : logs[r]) m.mean += x, ++m.n;
  m.mean /= static_cast<double>(m.n);
  for (size_t r = from; r < to; ++r)
    for (double x : logs[r]) m.var += (x - m.mean) * (x - m.mean);
  m.var = m.n > 1 ? m.var / static_cast<double>(m.n - 1) : 0;
  return m;
}

// The step at cut c[i] between its neighbouring cuts: geometric means and a
// Welch 95% interval of the difference of the mean logs.
ChangePoint wall_step(const std::vector<SeriesPoint>& series, const Samples& logs,
                      const std::vector<size_t>& cuts, size_t i) {
  const Moments a = moments(logs, cuts[i - 1], cuts[i]);
  const Moments b = moments(logs, cuts[i], cuts[i + 1]);
  const double va = a.var / static_cast<double>(a.n), vb = b.var / static_cast<double>(b.n);
  const double se = std::sqrt(va + vb);
  double dof = 1e9;
  if (se > 0) {
    const double den = (a.n > 1 ? va * va / static_cast<double>(a.n - 1) : 0) +
                       (b.n > 1 ? vb * vb / static_cast<double>(b.n - 1) : 0);
    dof = den > 0 ? (va + vb) * (va + vb) / den : 1e9;
  }
  const double half = se > 0 ? student_t_quantile(0.975, dof) * se : 0;
  const double d = b.mean - a.mean;
  ChangePoint c;
  c.index = cuts[i];
  c.before = series[cuts[i] - 1].label;
  c.after = series[cuts[i]].label;
  c.mean_before = std::exp(a.mean);
  c.mean_after = std::exp(b.mean);
  c.step = std::exp(d) - 1;
  c.step_lo = std::exp(d - half) - 1;
  c.step_hi = std::exp(d + half) - 1;
  return c;
}

// The cuts whose step (between their neighbouring cuts) is under min_step
// removed one at a time, the smallest first: removing one merges two
// segments and changes the steps beside it.
void drop_small_steps(const std::vector<SeriesPoint>& series, const Samples& logs,
                      std::vector<size_t>& cuts, double min_step) {
  while (cuts.size() > 2) {
    size_t smallest = 0;
    double smallest_size = INFINITY;
    for (size_t i = 1; i + 1 < cuts.size(); ++i) {
      const double size = std::fabs(wall_step(series, logs, cuts, i).step);
      if (size < smallest_size) smallest = i, smallest_size = size;
    }
    if (smallest_size >= min_step) return;
    cuts.erase(cuts.begin() + static_cast<std::ptrdiff_t>(smallest));
  }
}

UserError bad_point(const SeriesPoint& p, const std::string& why) {
  return UserError(fmt::format("change points: release '{}' {}", p.label, why),
                   "positive, finite values (speeds or counts per token) for every release",
                   "measure that release again, or leave it out of the history");
}

}  // namespace

std::vector<ChangePoint> count_change_points(const std::vector<SeriesPoint>& series,
                                             const CountStepOptions& o) {
  for (const SeriesPoint& p : series)
    if (p.samples.size() != 1 || !std::isfinite(p.samples[0]) || p.samples[0] <= 0)
      throw bad_point(p, fmt::format("has {} value(s), not one positive count", p.samples.size()));
  std::vector<ChangePoint> out;
  for (size_t i = 1; i < series.size(); ++i) {
    const double before = series[i - 1].samples[0], after = series[i].samples[0];
    const double ratio = after / before;
    // Within the tolerance, or within what another build of the same source
    // would show (-0.74% in LL misses from 3.21.1 to 3.22.1, measured: a
    // spread of 1%): no change point.
    if (std::fabs(ratio - 1) <= std::max(o.tolerance, o.build_spread)) continue;
    ChangePoint c;
    c.index = i;
    c.before = series[i - 1].label;
    c.after = series[i].label;
    c.mean_before = before;
    c.mean_after = after;
    c.step = ratio - 1;
    c.step_lo = ratio * (1 - o.build_spread) - 1;
    c.step_hi = ratio * (1 + o.build_spread) - 1;
    out.push_back(c);
  }
  return out;
}

std::vector<ChangePoint> wall_change_points(const std::vector<SeriesPoint>& series,
                                            const EDivisiveOptions& o) {
  Samples logs;
  for (const SeriesPoint& p : series) {
    if (p.samples.size() < 2) throw bad_point(p, "has fewer than 2 samples");
    logs.emplace_back();
    for (double x : p.samples) {
      if (!std::isfinite(x) || x <= 0) throw bad_point(p, fmt::format("has the sample {}", x));
      logs.back().push_back(std::log(x));
    }
  }
  std::vector<size_t> cuts = {0, series.size()};
  std::vector<std::pair<size_t, double>> found;  // cut, p
  std::mt19937_64 rng(o.seed);
  while (series.size() >= 2) {
    const Candidate best = best_split(EnergyBlocks(logs), cuts);
    if (best.tau == 0) break;
    const double p = permutation_p(logs, cuts, best.q, o, rng);
    if (p > o.alpha) break;
    found.emplace_back(best.tau, p);
    cuts.insert(std::upper_bound(cuts.begin(), cuts.end(), best.tau), best.tau);
  }
  drop_small_steps(series, logs, cuts, o.min_step);
  std::vector<ChangePoint> out;
  for (size_t i = 1; i + 1 < cuts.size(); ++i) {
    ChangePoint c = wall_step(series, logs, cuts, i);
    for (const auto& [cut, p] : found)
      if (cut == cuts[i]) c.p_value = p;
    out.push_back(c);
  }
  return out;
}

std::string change_point_text(const ChangePoint& c) {
  return fmt::format("{} -> {}: {:+.2f}% [{:+.2f}%, {:+.2f}%]{}", c.before, c.after, 100 * c.step,
                     100 * c.step_lo, 100 * c.step_hi,
                     c.p_value > 0 ? fmt::format(" (p {:.3g})", c.p_value) : "");
}

}  // namespace moesweep
