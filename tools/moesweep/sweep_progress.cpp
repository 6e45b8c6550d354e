#include "sweep_progress.hpp"

#include <fmt/format.h>

#include "util/terminal_text.hpp"

#include <algorithm>
#include <set>

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

// The points the resume skips: those that finished (a failed one is measured again).
void SweepProgress::resumed(const std::vector<Record>& earlier) {
  std::set<std::string> finished;
  for (const Record& r : earlier)
    if (r.ok) finished.insert(r.params.key_string());
  earlier_ = static_cast<int>(finished.size());
}

void SweepProgress::note(const std::string& message) {
  if (!quiet_) print_note("[sweep] " + message);
}

void SweepProgress::point(const Record& r) {
  const int done = ++done_, total = total_, number = earlier_ + done;
  if (quiet_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double eta = elapsed / done * std::max(0, total - number);
  const PointParams& p = r.params;
  if (r.ok) {
    fmt::print(
        stderr,
        "[sweep] point {}/{}  t={}/{} N_KV={}  PP {:.2f} t/s  TG {:.2f} t/s  elapsed {}  ETA {}\n",
        number, total, p.n_threads, p.n_threads_batch, p.n_kv, r.pp.speed.mean, r.tg.speed.mean,
        clock_text(elapsed), clock_text(eta));
  } else {
    print_note(fmt::format("[sweep] point {}/{}  t={}/{} N_KV={}  FAILED: {}", number, total,
                           p.n_threads, p.n_threads_batch, p.n_kv, r.error));
  }
}

}  // namespace moesweep::cli
