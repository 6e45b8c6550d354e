#include "report/sweet_spot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace moesweep {

namespace {

struct Mean {
  double pp = 0, tg = 0;
  int n_pp = 0, n_tg = 0;
};

std::map<int, ThreadPoint> average_by_threads(std::span<const ThreadPoint> points) {
  std::map<int, Mean> sums;
  for (const auto& p : points) {
    auto& s = sums[p.threads];
    if (p.speed_pp > 0) s.pp += p.speed_pp, ++s.n_pp;
    if (p.speed_tg > 0) s.tg += p.speed_tg, ++s.n_tg;
  }
  std::map<int, ThreadPoint> out;
  for (const auto& [threads, s] : sums)
    out[threads] = {threads, s.n_pp ? s.pp / s.n_pp : 0, s.n_tg ? s.tg / s.n_tg : 0};
  return out;
}

}  // namespace

SweetSpot find_sweet_spot(std::span<const ThreadPoint> points, const SweetSpotOptions& options) {
  SweetSpot s;
  const auto by_threads = average_by_threads(points);
  if (by_threads.empty()) {
    s.summary = "no thread counts measured";
    return s;
  }
  for (const auto& [threads, p] : by_threads) {
    if (p.speed_pp > s.best_pp) s.best_pp = p.speed_pp, s.best_pp_threads = threads;
    if (p.speed_tg > s.best_tg) s.best_tg = p.speed_tg, s.best_tg_threads = threads;
  }
  const bool use_pp = options.keep_pp > 0 && s.best_pp > 0;
  const bool use_tg = options.keep_tg > 0 && s.best_tg > 0;
  const int total = options.total_cores > 0 ? options.total_cores : by_threads.rbegin()->first;
  for (const auto& [threads, p] : by_threads) {  // ascending thread count: first hit is smallest
    const double fpp = s.best_pp > 0 ? p.speed_pp / s.best_pp : 0;
    const double ftg = s.best_tg > 0 ? p.speed_tg / s.best_tg : 0;
    // A small tolerance so 0.9 x best computed in floating point still counts as 90 %.
    const bool pp_ok = !use_pp || fpp >= options.keep_pp - 1e-9;
    const bool tg_ok = !use_tg || ftg >= options.keep_tg - 1e-9;
    if (!(use_pp || use_tg) || !pp_ok || !tg_ok) continue;
    s.found = true;
    s.threads = threads;
    s.speed_pp = p.speed_pp;
    s.speed_tg = p.speed_tg;
    s.pp_fraction = fpp;
    s.tg_fraction = ftg;
    s.cores_freed = std::max(0, total - threads);
    break;
  }
  if (!s.found) {
    s.summary = "no thread count measured both phases";
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
  s.summary = fmt::format("sweet spot: th={} keeps {}; frees {} of {} cores", s.threads, kept,
                          s.cores_freed, total);
  return s;
}

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
          {"summary", s.summary}};
}

}  // namespace moesweep
