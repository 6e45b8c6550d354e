#pragma once
// A thin, honest layer over perf_event_open(2): an owned fd, readings with
// time_enabled/time_running (so multiplexed counts are scaled, and an event
// that never got a counter is reported as such), and errno turned into a
// reason a user can act on.
#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace moesweep::counters {

struct PerfReading {
  std::uint64_t value = 0;
  std::uint64_t time_enabled = 0;
  std::uint64_t time_running = 0;
};

// The change between two readings, scaled up when the kernel multiplexed the
// event; nullopt when it was enabled but never ran (no count exists to scale).
std::optional<double> scaled_delta(const PerfReading& before, const PerfReading& after);

class PerfFd {
 public:
  PerfFd() = default;
  explicit PerfFd(int fd) : fd_(fd) {}
  PerfFd(PerfFd&& other) noexcept : fd_(other.release()) {}
  PerfFd& operator=(PerfFd&& other) noexcept;
  PerfFd(const PerfFd&) = delete;
  PerfFd& operator=(const PerfFd&) = delete;
  ~PerfFd();
  int get() const { return fd_; }
  int release();
  // A failed read (the task is gone and nothing was counted) reads as zeros.
  PerfReading read() const;

 private:
  int fd_ = -1;
};

struct PerfOpenError {
  int error = 0;       // errno
  std::string reason;  // "ENOENT: ..." with what it means here
};

// Counting attr with time_enabled/time_running in read_format, enabled at open.
perf_event_attr counting_attr(std::uint32_t type, std::uint64_t config);

std::variant<PerfFd, PerfOpenError> open_perf_event(const perf_event_attr& attr, int pid, int cpu);

// "ENOENT" etc. with a plain-language meaning for counters.
std::string errno_name(int error);
std::string explain_open_error(int error, bool system_wide);

// /proc/sys/kernel/perf_event_paranoid (nullopt when unreadable).
std::optional<int> read_perf_event_paranoid();
// CAP_PERFMON or CAP_SYS_ADMIN in the effective set: system-wide counting allowed.
bool has_perfmon_capability();

// Probe: can this machine count a generic hardware event (cycles) on this thread?
// Empty string when it can; otherwise the reason (ENOENT in a VM without a PMU).
std::string hardware_pmu_probe();

}  // namespace moesweep::counters
