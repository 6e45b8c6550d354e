#pragma once
// The one lifecycle of a run directory, the same for every command that
// makes one (the sweep through RunSession, serve-bench, trace, merge):
//   - the directory is locked (RunLock) while this run writes it;
//   - meta.json says "running" from begin() on and the final RunStatus at the
//     end (one enum, results/run_meta.hpp; no status is ever spelled here);
//   - meta.json is the first listener, then the caller's, in the order given;
//   - every listener hears begin once and end exactly once, on every way
//     out: end(status), fail(error) (meta.json "failed" with the error), or
//     the destructor (a caller that left by an exception of its own).
// Ctrl-C is the caller's (util/stop_signal.hpp): it ends with kInterrupted.
// It never prints.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "results/sink.hpp"
#include "run/run_directory.hpp"

namespace moesweep {

// Local time, ISO 8601 with the offset: meta.json's started_at/finished_at.
std::string run_timestamp_now();

class RunLifecycle {
 public:
  // Takes the directory's lock unless `lock` already holds it (a resume locks
  // before it reads the run). Throws UserError when another process holds it.
  explicit RunLifecycle(RunDirectory dir, std::optional<RunLock> lock = std::nullopt);
  ~RunLifecycle();  // still open: ends it "failed"
  RunLifecycle(const RunLifecycle&) = delete;
  RunLifecycle& operator=(const RunLifecycle&) = delete;

  const RunDirectory& dir() const { return dir_; }
  // Held until the lifecycle is destroyed, after end() too: what a command
  // writes into the run once it has ended (l3-run's validation) is written
  // under it.
  const RunLock& lock() const { return *lock_; }
  // meta.json's content: the caller fills it before begin() and may change it
  // while the run goes (save_meta() writes it at once, end() at the end).
  RunMeta& meta() { return meta_; }

  // Call before begin(). An owned listener, or one that outlives the run.
  void listen(std::unique_ptr<RunListener> listener) { listeners_.push(std::move(listener)); }
  void listen(RunListener& listener) { listeners_.push(&listener); }
  // Every event of the run goes to every listener through this.
  RunListener& listeners() { return listeners_; }

  // meta.json says "running" (and the run id and directory); every listener begins.
  void begin();
  void save_meta() const;
  // The final state: meta.json and every listener; the first listener error
  // is rethrown once all have ended.
  void end(RunStatus status);
  // An error stopped the run: meta.json says "failed" with `error`; every
  // finished record stays. Never throws (the error it reports must surface).
  void fail(const std::string& error) noexcept;
  bool is_open() const { return open_; }

  // Runs `step`; an exception ends the run "failed" with its message (also
  // before begin(): a listener that cannot open its file) and is rethrown.
  void guarded(const std::function<void()>& step);

 private:
  void name_the_run();  // meta.json's run id and directory are the directory's

  RunDirectory dir_;
  std::optional<RunLock> lock_;
  RunMeta meta_;
  ListenerSet listeners_;
  bool open_ = false;  // begun and not yet ended
};

}  // namespace moesweep
