#include "sweep_progress.hpp"

#include <fmt/format.h>

namespace moesweep::cli {
namespace {

std::string clock_text(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60)
                   : fmt::format("{}m{:02}s", s / 60, s % 60);
}

}  // namespace

void SweepProgress::begin(const RunMeta& meta) {
  total_ = static_cast<int>(meta.planned_points());
}

void SweepProgress::note(const std::string& message) {
  if (!quiet_) fmt::print(stderr, "[sweep] {}\n", message);
}

void SweepProgress::point(const Record& r) {
  const int done = ++done_, total = total_;
  if (quiet_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double eta = done > 0 ? elapsed / done * (total - done) : 0;
  const PointParams& p = r.params;
  if (r.ok) {
    fmt::print(
        stderr,
        "[sweep] point {}/{}  t={}/{} N_KV={}  PP {:.2f} t/s  TG {:.2f} t/s  elapsed {}  ETA {}\n",
        done, total, p.n_threads, p.n_threads_batch, p.n_kv, r.pp.speed.mean, r.tg.speed.mean,
        clock_text(elapsed), clock_text(eta));
  } else {
    fmt::print(stderr, "[sweep] point {}/{}  t={}/{} N_KV={}  FAILED: {}\n", done, total,
               p.n_threads, p.n_threads_batch, p.n_kv, r.error);
  }
}

}  // namespace moesweep::cli
