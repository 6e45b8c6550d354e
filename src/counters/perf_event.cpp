#include "counters/perf_event.hpp"

#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace moesweep::counters {

std::optional<double> scaled_delta(const PerfReading& before, const PerfReading& after) {
  const double value = static_cast<double>(after.value - before.value);
  const std::uint64_t enabled = after.time_enabled - before.time_enabled;
  const std::uint64_t running = after.time_running - before.time_running;
  if (running == enabled) return value;  // counted all the time (or the task was idle)
  if (running == 0) return std::nullopt;
  return value * static_cast<double>(enabled) / static_cast<double>(running);
}

PerfFd& PerfFd::operator=(PerfFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

PerfFd::~PerfFd() {
  if (fd_ >= 0) ::close(fd_);
}

int PerfFd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

PerfReading PerfFd::read() const {
  std::uint64_t buf[3] = {0, 0, 0};
  if (fd_ < 0 || ::read(fd_, buf, sizeof buf) != static_cast<ssize_t>(sizeof buf)) return {};
  return {buf[0], buf[1], buf[2]};
}

perf_event_attr counting_attr(std::uint32_t type, std::uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return attr;
}

std::variant<PerfFd, PerfOpenError> open_perf_event(const perf_event_attr& attr, int pid, int cpu) {
  perf_event_attr copy = attr;
  const long fd = ::syscall(SYS_perf_event_open, &copy, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) return PerfFd(static_cast<int>(fd));
  const int error = errno;
  return PerfOpenError{error, explain_open_error(error, pid == -1)};
}

std::string errno_name(int error) {
  switch (error) {
    case ENOENT:
      return "ENOENT";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case EINVAL:
      return "EINVAL";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case ENODEV:
      return "ENODEV";
    case EMFILE:
      return "EMFILE";
    case ESRCH:
      return "ESRCH";
    case EBUSY:
      return "EBUSY";
    default:
      return fmt::format("errno {}", error);
  }
}

std::string explain_open_error(int error, bool system_wide) {
  const std::string name = errno_name(error);
  switch (error) {
    case ENOENT:
      return name +
             ": no such event on this kernel (no hardware PMU exposed: a VM without a "
             "virtual PMU, or a missing PMU driver)";
    case EACCES:
    case EPERM: {
      const auto paranoid = read_perf_event_paranoid();
      return fmt::format(
          "{}: not permitted at perf_event_paranoid={}{}", name,
          paranoid ? std::to_string(*paranoid) : "?",
          system_wide
              ? " (system-wide/uncore counting needs perf_event_paranoid <= 0 or CAP_PERFMON)"
              : " (kernel-side counting needs perf_event_paranoid <= 1 or CAP_PERFMON)");
    }
    case EOPNOTSUPP:
      return name +
             ": this PMU does not support the requested mode (uncore PMUs count system-wide only)";
    case EINVAL:
      return name + ": the kernel rejected the event encoding or attributes";
    case ENODEV:
      return name + ": the CPU named is offline or not in the PMU's cpumask";
    case EMFILE:
      return name + ": out of file descriptors (raise `ulimit -n`)";
    default:
      return fmt::format("{}: {}", name, std::strerror(error));
  }
}

std::optional<int> read_perf_event_paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

bool has_perfmon_capability() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    const std::uint64_t caps = std::stoull(line.substr(7), nullptr, 16);
    constexpr int kCapSysAdmin = 21, kCapPerfmon = 38;
    return (caps >> kCapPerfmon & 1) || (caps >> kCapSysAdmin & 1);
  }
  return false;
}

std::string hardware_pmu_probe() {
  perf_event_attr attr = counting_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  attr.exclude_kernel = 1;  // allowed at any paranoid level below 3
  attr.exclude_hv = 1;
  auto opened = open_perf_event(attr, 0, -1);
  if (std::holds_alternative<PerfFd>(opened)) return "";
  return "perf_event_open(cycles) failed with " + std::get<PerfOpenError>(opened).reason;
}

}  // namespace moesweep::counters
