#pragma once
// Noise signals of a shared machine, read around each measured point: CPU
// steal time (the hypervisor ran someone else on our virtual CPUs), the load
// average and the CPU frequency. On shared VMs one cell moved by up to 30%
// between runs minutes apart; these say which cells to distrust. Nothing is
// invented: a signal the machine does not expose is recorded as unavailable
// with the reason.
#include <sys/types.h>
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
// A point is flagged when other processes of this machine (not the engine,
// not the point's planned co-tenant) ran on its CPUs for more than this
// fraction of its wall time x CPUs. 5%: the tick accounting (10 ms per read
// and CPU) and this VM's idle daemons stay near 1-2% on a point of a second
// or more; a compile job beside the sweep takes 30-50% of a CPU.
inline constexpr double kOthersFlagFraction = 0.05;
// ... and only above this many ticks of other processes' time: the four
// readings behind the figure (busy and own time, before and after) each round
// to a tick, so a point of a few hundred ms could pass 5% on rounding alone.
inline constexpr double kOthersMinTicks = 4;

struct CpuJiffies {
  uint64_t steal = 0;  // 8th value of a /proc/stat cpu line
  uint64_t total = 0;  // sum of all values of the line
  uint64_t busy = 0;   // user + nice + system + irq + softirq: time some task or the kernel ran
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
  // CPU time other processes used on those CPUs: their busy time minus the
  // engine's own (and a planned co-tenant's) process time.
  std::optional<double> others_fraction;  // others_s / (wall_s x cpus)
  std::optional<double> others_s;         // CPU-seconds
  double tick_s = 0.01;                   // one tick of the readings (1 / USER_HZ)
  std::string others_unavailable;

  bool flagged() const { return steal_fraction && *steal_fraction > kStealFlagFraction; }
  bool others_flagged() const {
    return others_fraction && *others_fraction > kOthersFlagFraction &&
           *others_s > kOthersMinTicks * tick_s;
  }
  // {"wall_s", "cpus", "steal_fraction", "steal_s", "steal_flagged", "load_1m",
  // "freq_mhz", "others_fraction", "others_s", "others_flagged"}; an absent
  // signal is {"unavailable": reason}.
  nlohmann::json to_json() const;
};

// Steal between two snapshots over `cpus` (their cpuN lines; empty = the
// aggregate line over every CPU). ticks_per_s: USER_HZ (sysconf(_SC_CLK_TCK)).
void steal_between(const ProcStat& before, const ProcStat& after, const std::vector<int>& cpus,
                   double ticks_per_s, NoiseReading& out);
// Other processes' CPU time on `cpus` (empty = every CPU) between two
// snapshots: busy ticks minus `own_ticks` (the engine's process time), never
// below zero (the engine's main thread may run outside the point's CPUs).
void others_between(const ProcStat& before, const ProcStat& after, const std::vector<int>& cpus,
                    uint64_t own_ticks, double ticks_per_s, NoiseReading& out);
// utime + stime of every thread of a process (/proc/PID/stat), in ticks.
std::optional<uint64_t> read_process_ticks(const std::filesystem::path& proc_root, pid_t pid);
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
  std::filesystem::path proc_root = "/proc";  // <pid>/stat of the processes that are ours
};

// Reads the signals around one point: start() before it, finish() after.
class NoiseProbe {
 public:
  using Paths = NoisePaths;
  // cpus: the CPUs the point's threads may run on; empty = all. own_pids:
  // the processes whose CPU time is the point's own: the engine's (this
  // process or its worker) and a planned co-tenant's when it shares the CPUs.
  NoiseProbe(std::vector<int> cpus, std::vector<pid_t> own_pids, Paths paths = {});
  // The engine in this process.
  explicit NoiseProbe(std::vector<int> cpus = {}, Paths paths = {});
  void start();
  NoiseReading finish() const;

 private:
  std::optional<uint64_t> own_ticks() const;  // nullopt when a process's stat is unreadable
  void read_others(const ProcStat& before, const ProcStat& after, NoiseReading& r) const;
  std::vector<int> cpus_;
  std::vector<pid_t> own_pids_;
  Paths paths_;
  std::optional<ProcStat> before_;
  std::optional<uint64_t> own_before_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace moesweep
