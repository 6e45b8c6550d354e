#pragma once
// Noise signals of a shared machine, read around each measured point: CPU
// steal time (the hypervisor ran someone else on our virtual CPUs), the load
// average and the CPU frequency. On shared VMs one cell moved by up to 30%
// between runs minutes apart; these say which cells to distrust. Nothing is
// invented: a signal the machine does not expose is recorded as unavailable
// with the reason.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

// A point is flagged when steal took more than this fraction of its wall time
// x CPUs: 2% is above what the scheduler's own jitter explains, and well below
// the 30% swings seen on shared VMs.
inline constexpr double kStealFlagFraction = 0.02;

struct CpuJiffies {
  uint64_t steal = 0;  // 8th value of a /proc/stat cpu line
  uint64_t total = 0;  // sum of all values of the line
};

// One snapshot of /proc/stat's cpu lines.
struct ProcStat {
  CpuJiffies all;                     // the aggregate "cpu" line
  std::map<int, CpuJiffies> per_cpu;  // the "cpuN" lines
};

// Reads a /proc/stat-format file; nullopt when it is missing or has no cpu line.
std::optional<ProcStat> read_proc_stat(const std::filesystem::path& path);

// The noise signals of one point.
struct NoiseReading {
  double wall_s = 0;                     // the point's wall time
  int cpus = 0;                          // CPUs the steal is summed over
  std::optional<double> steal_fraction;  // stolen / (wall_s x cpus)
  std::optional<double> steal_s;         // CPU-seconds stolen
  std::string steal_unavailable;         // why steal_fraction is absent
  std::optional<double> load_1m;         // 1-minute load average at the end of the point
  std::string load_unavailable;
  std::optional<double> freq_mhz;  // mean scaling_cur_freq of those CPUs at the end
  std::string freq_unavailable;

  bool flagged() const { return steal_fraction && *steal_fraction > kStealFlagFraction; }
  // {"wall_s", "cpus", "steal_fraction", "steal_s", "steal_flagged", "load_1m",
  // "freq_mhz"}; an absent signal is {"unavailable": reason}.
  nlohmann::json to_json() const;
};

// Steal between two snapshots over `cpus` (their cpuN lines; empty = the
// aggregate line over every CPU). ticks_per_s: USER_HZ (sysconf(_SC_CLK_TCK)).
void steal_between(const ProcStat& before, const ProcStat& after, const std::vector<int>& cpus,
                   double ticks_per_s, NoiseReading& out);
// The first value of a /proc/loadavg-format file.
std::optional<double> read_load_1m(const std::filesystem::path& path);
// Mean of cpuN/cpufreq/scaling_cur_freq (kHz) under cpu_sysfs, in MHz; nullopt
// when no CPU has one (usual on VMs).
std::optional<double> read_freq_mhz(const std::filesystem::path& cpu_sysfs,
                                    const std::vector<int>& cpus);

// Where the signals are read (tests point these at recorded files).
struct NoisePaths {
  std::filesystem::path proc_stat = "/proc/stat";
  std::filesystem::path loadavg = "/proc/loadavg";
  std::filesystem::path cpu_sysfs = "/sys/devices/system/cpu";
};

// Reads the signals around one point: start() before it, finish() after.
class NoiseProbe {
 public:
  using Paths = NoisePaths;
  // cpus: the CPUs the point's threads may run on; empty = all.
  explicit NoiseProbe(std::vector<int> cpus = {}, Paths paths = {});
  void start();
  NoiseReading finish() const;

 private:
  std::vector<int> cpus_;
  Paths paths_;
  std::optional<ProcStat> before_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace moesweep
