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

void SweepProgress::on_note(const std::string& message) {
  if (!quiet_) fmt::print(stderr, "[sweep] {}\n", message);
}

void SweepProgress::on_record(const Record& r, int done, int total) {
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

void ObserverSet::on_note(const std::string& m) {
  for (auto* o : observers_) o->on_note(m);
}
void ObserverSet::on_sample(const PlannedPoint& p, const char* phase, int rep, double s,
                            int tokens) {
  for (auto* o : observers_) o->on_sample(p, phase, rep, s, tokens);
}
void ObserverSet::on_model_loaded(const nlohmann::json& facts) {
  for (auto* o : observers_) o->on_model_loaded(facts);
}
void ObserverSet::on_record(const Record& r, int done, int total) {
  for (auto* o : observers_) o->on_record(r, done, total);
}

}  // namespace moesweep::cli
