#include "hw/noise_probe.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace moesweep {

std::optional<ProcStat> read_proc_stat(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  ProcStat stat;
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cpu", 0) != 0) continue;
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    CpuJiffies j;
    uint64_t v = 0;
    for (int i = 0; fields >> v; ++i) {
      j.total += v;
      if (i == 7) j.steal = v;  // user nice system idle iowait irq softirq steal ...
      if (i <= 2 || i == 5 || i == 6) j.busy += v;
    }
    if (name == "cpu") {
      stat.all = j;
      any = true;
    } else {
      try {
        stat.per_cpu[std::stoi(name.substr(3))] = j;
        any = true;
      } catch (const std::exception&) {
        // not a cpuN line: ignore
      }
    }
  }
  if (!any) return std::nullopt;
  return stat;
}

void steal_between(const ProcStat& before, const ProcStat& after, const std::vector<int>& cpus,
                   double ticks_per_s, NoiseReading& out) {
  uint64_t stolen = 0;
  int n = 0;
  if (cpus.empty()) {
    stolen = after.all.steal - std::min(after.all.steal, before.all.steal);
    n = static_cast<int>(after.per_cpu.size());
  } else {
    for (int cpu : cpus) {
      auto a = after.per_cpu.find(cpu), b = before.per_cpu.find(cpu);
      if (a == after.per_cpu.end() || b == before.per_cpu.end()) {
        out.steal_unavailable = fmt::format("/proc/stat has no line for cpu{}", cpu);
        return;
      }
      stolen += a->second.steal - std::min(a->second.steal, b->second.steal);
      ++n;
    }
  }
  out.cpus = n;
  if (n == 0 || out.wall_s <= 0 || ticks_per_s <= 0) {
    out.steal_unavailable = "no CPU lines or no wall time to relate the steal to";
    return;
  }
  out.steal_s = static_cast<double>(stolen) / ticks_per_s;
  out.steal_fraction = *out.steal_s / (out.wall_s * n);
}

namespace {

uint64_t delta(uint64_t after, uint64_t before) {
  return after - std::min(after, before);
}

}  // namespace

void others_between(const ProcStat& before, const ProcStat& after, const std::vector<int>& cpus,
                    uint64_t own_ticks, double ticks_per_s, NoiseReading& out) {
  uint64_t busy = 0;
  int n = 0;
  if (cpus.empty()) {
    busy = delta(after.all.busy, before.all.busy);
    n = static_cast<int>(after.per_cpu.size());
  }
  for (int cpu : cpus) {
    auto a = after.per_cpu.find(cpu), b = before.per_cpu.find(cpu);
    if (a == after.per_cpu.end() || b == before.per_cpu.end()) {
      out.others_unavailable = fmt::format("/proc/stat has no line for cpu{}", cpu);
      return;
    }
    busy += delta(a->second.busy, b->second.busy);
    ++n;
  }
  if (n == 0 || out.wall_s <= 0 || ticks_per_s <= 0) {
    out.others_unavailable = "no CPU lines or no wall time to relate the time to";
    return;
  }
  out.tick_s = 1 / ticks_per_s;
  out.others_s = static_cast<double>(delta(busy, own_ticks)) / ticks_per_s;
  out.others_fraction = *out.others_s / (out.wall_s * n);
}

std::optional<uint64_t> read_process_ticks(const std::filesystem::path& proc_root, pid_t pid) {
  std::ifstream in(proc_root / std::to_string(pid) / "stat");
  std::string line;
  if (!std::getline(in, line) || line.size() > 4096) return std::nullopt;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so
  // count from the last ')'; utime and stime are fields 14 and 15.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 13 && fields >> field; ++i) {
  }
  if (!(fields >> utime >> stime)) return std::nullopt;
  return utime + stime;
}

std::optional<double> read_load_1m(const std::filesystem::path& path) {
  std::ifstream in(path);
  double v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

std::optional<double> read_freq_mhz(const std::filesystem::path& cpu_sysfs,
                                    const std::vector<int>& cpus) {
  std::vector<int> which = cpus;
  if (which.empty()) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(cpu_sysfs, ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() > 3 && name.rfind("cpu", 0) == 0 &&
          name.find_first_not_of("0123456789", 3) == std::string::npos)
        which.push_back(std::stoi(name.substr(3)));
    }
  }
  double sum_khz = 0;
  int n = 0;
  for (int cpu : which) {
    std::ifstream in(cpu_sysfs / fmt::format("cpu{}", cpu) / "cpufreq" / "scaling_cur_freq");
    double khz = 0;
    if (in >> khz && khz > 0) {
      sum_khz += khz;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum_khz / n / 1000.0;
}

nlohmann::json NoiseReading::to_json() const {
  auto value_or_reason = [](const std::optional<double>& v, const std::string& why) {
    return v ? nlohmann::json(*v) : nlohmann::json{{"unavailable", why}};
  };
  return {{"wall_s", wall_s},
          {"cpus", cpus},
          {"steal_fraction", value_or_reason(steal_fraction, steal_unavailable)},
          {"steal_s", value_or_reason(steal_s, steal_unavailable)},
          {"steal_flagged", flagged()},
          {"load_1m", value_or_reason(load_1m, load_unavailable)},
          {"freq_mhz", value_or_reason(freq_mhz, freq_unavailable)},
          {"others_fraction", value_or_reason(others_fraction, others_unavailable)},
          {"others_s", value_or_reason(others_s, others_unavailable)},
          {"others_flagged", others_flagged()}};
}

NoiseProbe::NoiseProbe(std::vector<int> cpus, std::vector<pid_t> own_pids, Paths paths)
    : cpus_(std::move(cpus)), own_pids_(std::move(own_pids)), paths_(std::move(paths)) {}

NoiseProbe::NoiseProbe(std::vector<int> cpus, Paths paths)
    : NoiseProbe(std::move(cpus), {getpid()}, std::move(paths)) {}

void NoiseProbe::start() {
  own_before_ = own_ticks();
  before_ = read_proc_stat(paths_.proc_stat);
  t0_ = std::chrono::steady_clock::now();
}

std::optional<uint64_t> NoiseProbe::own_ticks() const {
  uint64_t sum = 0;
  for (pid_t pid : own_pids_) {
    const std::optional<uint64_t> t = read_process_ticks(paths_.proc_root, pid);
    if (!t) return std::nullopt;
    sum += *t;
  }
  return sum;
}

void NoiseProbe::read_others(const ProcStat& before, const ProcStat& after, NoiseReading& r) const {
  const std::optional<uint64_t> own_after = own_ticks();
  if (!own_before_ || !own_after) {
    r.others_unavailable = fmt::format("the stat file of process(es) {} under {} is not readable",
                                       fmt::join(own_pids_, ","), paths_.proc_root.string());
    return;
  }
  others_between(before, after, cpus_, delta(*own_after, *own_before_),
                 static_cast<double>(sysconf(_SC_CLK_TCK)), r);
}

NoiseReading NoiseProbe::finish() const {
  NoiseReading r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const std::optional<ProcStat> after = read_proc_stat(paths_.proc_stat);
  if (before_ && after) {
    steal_between(*before_, *after, cpus_, static_cast<double>(sysconf(_SC_CLK_TCK)), r);
    read_others(*before_, *after, r);
  } else {
    r.steal_unavailable = fmt::format("{} is not readable", paths_.proc_stat.string());
    r.others_unavailable = r.steal_unavailable;
  }
  r.load_1m = read_load_1m(paths_.loadavg);
  if (!r.load_1m) r.load_unavailable = fmt::format("{} is not readable", paths_.loadavg.string());
  r.freq_mhz = read_freq_mhz(paths_.cpu_sysfs, cpus_);
  if (!r.freq_mhz)
    r.freq_unavailable =
        fmt::format("no cpufreq/scaling_cur_freq under {} (usual on VMs: the hypervisor hides it)",
                    paths_.cpu_sysfs.string());
  return r;
}

}  // namespace moesweep
