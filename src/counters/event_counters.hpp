#pragma once
// The open counters of one backend, grouped by event name (one event may have
// many fds: one per thread, one per uncore CPU, one per DF channel), and the
// reasons for the events that could not be opened. Deltas between two
// snapshots are summed per event, each fd scaled for multiplexing on its own.
#include <linux/perf_event.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "counters/perf_event.hpp"

namespace moesweep::counters {

using CounterSnapshot = std::vector<PerfReading>;

class EventCounters {
 public:
  void add(const std::string& event, PerfFd fd);
  // The first reason given for an event is kept (it is usually the root cause).
  void mark_unavailable(const std::string& event, const std::string& reason);
  bool counting(const std::string& event) const;
  const std::map<std::string, std::string>& unavailable() const { return unavailable_; }
  std::size_t fd_count() const { return counters_.size(); }
  void clear();

  CounterSnapshot read() const;
  // Per event, the summed (scaled) change; an event any of whose fds was
  // enabled but never ran lands in `never_ran` instead.
  std::map<std::string, double> deltas(const CounterSnapshot& before, const CounterSnapshot& after,
                                       std::set<std::string>& never_ran) const;

 private:
  struct Counter {
    std::string event;
    PerfFd fd;
  };
  std::vector<Counter> counters_;
  std::map<std::string, std::string> unavailable_;
};

// The thread ids in /proc/<pid>/task (0: this process): the engine's worker
// threads included, which is why counters are attached after the engine
// created them.
std::vector<int> process_thread_ids(int pid = 0);

struct ThreadAttachResult {
  std::vector<PerfFd> fds;
  bool user_space_only = false;        // perf_event_paranoid forced exclude_kernel
  std::optional<PerfOpenError> error;  // set when no thread could be attached
};

// Opens `attr` on every thread in `tids` with inherit=1, so threads they create
// later (ggml's per-graph workers) are counted in their creator's counter. When
// the kernel refuses kernel-side counting (EACCES), retries user-space only.
ThreadAttachResult open_on_threads(perf_event_attr attr, const std::vector<int>& tids);

}  // namespace moesweep::counters
