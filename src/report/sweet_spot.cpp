#include "report/sweet_spot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "results/power.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

namespace {

struct Mean {
  double pp = 0, tg = 0;
  int points_pp = 0, points_tg = 0;  // points averaged
  double var_pp = 0, var_tg = 0;     // sums of their squared standard errors
  int n_pp = 0, n_tg = 0;            // their samples
  bool spread_pp = true, spread_tg = true;
};

void add_phase(double speed, double se, int n, double& sum, double& var, int& points, int& samples,
               bool& spread) {
  if (speed <= 0) return;
  sum += speed;
  var += se * se;
  ++points;
  samples += n;
  spread = spread && n >= 2;
}

// Points of one thread count averaged: the mean of their means, whose
// standard error is sqrt(sum se^2) / points.
std::map<int, ThreadPoint> average_by_threads(std::span<const ThreadPoint> points) {
  std::map<int, Mean> sums;
  for (const auto& p : points) {
    auto& s = sums[p.threads];
    add_phase(p.speed_pp, p.se_pp, p.n_pp, s.pp, s.var_pp, s.points_pp, s.n_pp, s.spread_pp);
    add_phase(p.speed_tg, p.se_tg, p.n_tg, s.tg, s.var_tg, s.points_tg, s.n_tg, s.spread_tg);
  }
  std::map<int, ThreadPoint> out;
  for (const auto& [threads, s] : sums) {
    ThreadPoint& t = out[threads];
    t.threads = threads;
    if (s.points_pp) {
      t.speed_pp = s.pp / s.points_pp;
      t.se_pp = std::sqrt(s.var_pp) / s.points_pp;
      t.n_pp = s.spread_pp ? s.n_pp : 0;
    }
    if (s.points_tg) {
      t.speed_tg = s.tg / s.points_tg;
      t.se_tg = std::sqrt(s.var_tg) / s.points_tg;
      t.n_tg = s.spread_tg ? s.n_tg : 0;
    }
  }
  return out;
}

// speed / best with a 95% CI: the delta method on its log, Welch-Satterthwaite dof.
Fraction fraction_of(double speed, double se, int n, double best, double best_se, int best_n,
                     bool is_best) {
  Fraction f;
  if (speed <= 0 || best <= 0) return f;
  f.value = speed / best;
  f.lo = f.hi = f.value;
  if (n < 2 || best_n < 2) return f;
  f.known = true;
  if (is_best) return f;  // the best is its own 100%
  const double v = std::pow(se / speed, 2), vb = std::pow(best_se / best, 2);
  const double denom = v * v / (n - 1) + vb * vb / (best_n - 1);
  const double dof = denom > 0 ? (v + vb) * (v + vb) / denom : n + best_n - 2;
  const double half = student_t_quantile(0.975, std::max(1.0, dof)) * std::sqrt(v + vb);
  f.log_se = std::sqrt(v + vb);
  f.lo = f.value * std::exp(-half);
  f.hi = f.value * std::exp(half);
  return f;
}

// The fewest samples any point had in a phase the sweet spot uses.
int fewest_samples(std::span<const ThreadPoint> points, bool use_pp, bool use_tg) {
  int fewest = 0;
  auto take = [&fewest](int n) {
    if (n > 0 && (fewest == 0 || n < fewest)) fewest = n;
  };
  for (const ThreadPoint& p : points) {
    if (use_pp && p.speed_pp > 0) take(p.n_pp);
    if (use_tg && p.speed_tg > 0) take(p.n_tg);
  }
  return fewest;
}

bool overlaps(const Fraction& f, double line) {
  return f.known && f.lo <= line + 1e-9 && f.hi >= line - 1e-9;
}

std::string fraction_text(const char* phase, const Fraction& f) {
  return fmt::format("{} {:.0f}% [{:.0f}%, {:.0f}%]", phase, 100 * f.value, 100 * f.lo, 100 * f.hi);
}

// "; cannot tell apart from the 90% line (its 95% CI overlaps it): th=12 (S_TG 88% [84%, 93%])"
std::string uncertainty_text(const SweetSpot& s, const SweetSpotOptions& o, bool use_pp,
                             bool use_tg) {
  if (!s.spread_known) return "its uncertainty is unknown (under 2 repetitions a point)";
  const std::string line =
      use_pp && use_tg && o.keep_pp != o.keep_tg
          ? fmt::format("{:.0f}%/{:.0f}% lines", 100 * o.keep_pp, 100 * o.keep_tg)
          : fmt::format("{:.0f}% line", 100 * (use_tg ? o.keep_tg : o.keep_pp));
  std::string which;
  for (const ThreadFractions& t : s.fractions) {
    if (!t.cannot_tell) continue;
    std::string parts;
    if (use_pp) parts = fraction_text("S_PP", t.pp);
    if (use_tg) parts += (parts.empty() ? "" : ", ") + fraction_text("S_TG", t.tg);
    which += fmt::format("{}th={} ({})", which.empty() ? "" : ", ", t.threads, parts);
  }
  if (which.empty()) return fmt::format("every thread count's 95% CI is clear of the {}", line);
  return fmt::format("cannot tell apart from the {} (95% CI overlaps it): {}", line, which);
}

constexpr double kBoundedHalfWidth = 0.0953;  // log(1.1): a CI within ±10%

// The fewest repetitions a point needs for a fraction's CI to be within ±10%,
// its standard error shrinking as 1/sqrt(repetitions) and the t quantile's
// degrees of freedom those of two means (conservative for averaged depths).
int repetitions_to_bound(const Fraction& f, int repetitions) {
  if (!f.known || f.log_se <= 0 || repetitions < 2) return 0;
  for (int r = std::max(3, repetitions); r <= 1000; ++r) {
    const double se = f.log_se * std::sqrt(static_cast<double>(repetitions) / r);
    if (student_t_quantile(0.975, 2.0 * (r - 1)) * se <= kBoundedHalfWidth)
      return r == repetitions ? 0 : r;
  }
  return 1000;
}

// "; at 2 repetitions a point these intervals are unbounded ...": said where
// the repetitions cannot bound the intervals (2 always, more when wide).
std::string bound_text(const SweetSpot& s) {
  if (s.repetitions_to_bound == 0) return "";
  const std::string how =
      s.repetitions_to_bound >= 1000
          ? "more than 1000 repetitions would be needed to bound them within ±10% at this spread"
          : fmt::format("about -r {} would bound them within ±10% at this spread",
                        s.repetitions_to_bound);
  return fmt::format("; at {} repetitions a point these intervals are {}: {}", s.repetitions,
                     s.repetitions == 2 ? "unbounded" : "wide", how);
}

}  // namespace

namespace {

// Every thread count's fraction of each phase's best, with its CI.
void set_fractions(SweetSpot& s, const std::map<int, ThreadPoint>& by_threads,
                   const SweetSpotOptions& o, bool use_pp, bool use_tg) {
  const ThreadPoint& best_pp = by_threads.at(s.best_pp_threads);
  const ThreadPoint& best_tg = by_threads.at(s.best_tg_threads);
  s.spread_known = true;
  for (const auto& [threads, p] : by_threads) {
    ThreadFractions t;
    t.threads = threads;
    t.pp = fraction_of(p.speed_pp, p.se_pp, p.n_pp, s.best_pp, best_pp.se_pp, best_pp.n_pp,
                       threads == s.best_pp_threads);
    t.tg = fraction_of(p.speed_tg, p.se_tg, p.n_tg, s.best_tg, best_tg.se_tg, best_tg.n_tg,
                       threads == s.best_tg_threads);
    if (use_pp) s.spread_known = s.spread_known && t.pp.known;
    if (use_tg) s.spread_known = s.spread_known && t.tg.known;
    t.cannot_tell = (use_pp && overlaps(t.pp, o.keep_pp)) || (use_tg && overlaps(t.tg, o.keep_tg));
    s.fractions.push_back(t);
  }
}

// The smallest thread count that keeps the fraction of each used phase.
void choose(SweetSpot& s, const std::map<int, ThreadPoint>& by_threads, const SweetSpotOptions& o,
            bool use_pp, bool use_tg, int total) {
  for (const ThreadFractions& t : s.fractions) {  // ascending thread count
    // A small tolerance so 0.9 x best computed in floating point still counts as 90 %.
    const bool pp_ok = !use_pp || t.pp.value >= o.keep_pp - 1e-9;
    const bool tg_ok = !use_tg || t.tg.value >= o.keep_tg - 1e-9;
    if (!pp_ok || !tg_ok) continue;
    const ThreadPoint& p = by_threads.at(t.threads);
    s.found = true;
    s.threads = t.threads;
    s.speed_pp = p.speed_pp;
    s.speed_tg = p.speed_tg;
    s.pp_fraction = t.pp.value;
    s.tg_fraction = t.tg.value;
    s.cores_freed = std::max(0, total - t.threads);
    return;
  }
}

// "no thread count kept 90% of both best S_PP (551.00 t/s at th=2) and best
// S_TG (331.00 t/s at th=1): th=1 S_PP 62%, S_TG 100%; th=2 S_PP 100%, S_TG 81%"
std::string none_kept_text(const SweetSpot& s, const SweetSpotOptions& o) {
  const std::string lines = o.keep_pp == o.keep_tg ? fmt::format("{:.0f}% of both", 100 * o.keep_pp)
                                                   : fmt::format("{:.0f}% and {:.0f}% of",
                                                                 100 * o.keep_pp, 100 * o.keep_tg);
  std::string each;
  for (const ThreadFractions& t : s.fractions) {
    const auto part = [](const char* phase, const Fraction& f) {
      return f.value > 0 ? fmt::format("{} {:.0f}%", phase, 100 * f.value)
                         : fmt::format("{} not measured", phase);
    };
    each += fmt::format("{}th={} {}, {}", each.empty() ? "" : "; ", t.threads, part("S_PP", t.pp),
                        part("S_TG", t.tg));
  }
  return fmt::format(
      "no thread count kept {} best S_PP ({:.2f} t/s at th={}) and best S_TG ({:.2f} t/s at "
      "th={}): {}",
      lines, s.best_pp, s.best_pp_threads, s.best_tg, s.best_tg_threads, each);
}

}  // namespace

SweetSpot find_sweet_spot(std::span<const ThreadPoint> points, const SweetSpotOptions& options) {
  SweetSpot s;
  const auto by_threads = average_by_threads(points);
  for (const auto& [threads, p] : by_threads) {
    if (p.speed_pp > s.best_pp) s.best_pp = p.speed_pp, s.best_pp_threads = threads;
    if (p.speed_tg > s.best_tg) s.best_tg = p.speed_tg, s.best_tg_threads = threads;
  }
  const bool use_pp = options.keep_pp > 0 && s.best_pp > 0;
  const bool use_tg = options.keep_tg > 0 && s.best_tg > 0;
  if (!use_pp && !use_tg) {
    s.summary = by_threads.empty() ? "no thread counts measured"
                                   : "no thread count measured a phase the sweet spot weighs";
    return s;
  }
  const int total = options.total_cores > 0 ? options.total_cores : by_threads.rbegin()->first;
  set_fractions(s, by_threads, options, use_pp, use_tg);
  choose(s, by_threads, options, use_pp, use_tg, total);
  if (!s.found) {
    s.summary = none_kept_text(s, options);
    return s;
  }
  std::string kept;
  if (use_pp)
    kept += fmt::format("{:.0f}% of best S_PP ({:.2f} of {:.2f} t/s at th={})", 100 * s.pp_fraction,
                        s.speed_pp, s.best_pp, s.best_pp_threads);
  if (use_tg) {
    if (!kept.empty()) kept += " and ";
    kept += fmt::format("{:.0f}% of best S_TG ({:.2f} of {:.2f} t/s at th={})", 100 * s.tg_fraction,
                        s.speed_tg, s.best_tg, s.best_tg_threads);
  }
  s.repetitions = fewest_samples(points, use_pp, use_tg);
  for (const ThreadFractions& t : s.fractions) {
    if (use_pp)
      s.repetitions_to_bound =
          std::max(s.repetitions_to_bound, repetitions_to_bound(t.pp, s.repetitions));
    if (use_tg)
      s.repetitions_to_bound =
          std::max(s.repetitions_to_bound, repetitions_to_bound(t.tg, s.repetitions));
  }
  s.headline = fmt::format("sweet spot: th={} keeps {}; frees {} of {} cores", s.threads, kept,
                           s.cores_freed, total);
  s.uncertainty = uncertainty_text(s, options, use_pp, use_tg) + bound_text(s);
  s.summary = s.headline + "; " + s.uncertainty;
  return s;
}

std::string sweet_spot_text(const SweetSpot& s, const std::string& prefix, TableWidth width) {
  if (width == TableWidth::kWide) return prefix + s.summary + "\n";
  if (s.headline.empty()) return wrap_words(prefix + s.summary, kTerminalWidth, "  ") + "\n";
  return wrap_words(prefix + s.headline, kTerminalWidth, "  ") + "\n" +
         wrap_words("  " + s.uncertainty, kTerminalWidth, "  ") + "\n";
}

namespace {

nlohmann::json fraction_json(const Fraction& f) {
  if (f.value <= 0) return nullptr;
  nlohmann::json j = {{"value", f.value}};
  if (f.known) j["ci95"] = {f.lo, f.hi};
  return j;
}

nlohmann::json fractions_json(const SweetSpot& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const ThreadFractions& t : s.fractions)
    out.push_back({{"threads", t.threads},
                   {"pp", fraction_json(t.pp)},
                   {"tg", fraction_json(t.tg)},
                   {"cannot_tell_apart", t.cannot_tell}});
  return out;
}

}  // namespace

nlohmann::json to_json(const SweetSpot& s) {
  return {{"found", s.found},
          {"threads", s.threads},
          {"speed_pp", s.speed_pp},
          {"speed_tg", s.speed_tg},
          {"best_pp", s.best_pp},
          {"best_pp_threads", s.best_pp_threads},
          {"best_tg", s.best_tg},
          {"best_tg_threads", s.best_tg_threads},
          {"pp_fraction", s.pp_fraction},
          {"tg_fraction", s.tg_fraction},
          {"cores_freed", s.cores_freed},
          {"spread_known", s.spread_known},
          {"repetitions", s.repetitions},
          {"repetitions_to_bound", s.repetitions_to_bound},
          {"fractions", fractions_json(s)},
          {"summary", s.summary}};
}

}  // namespace moesweep
