#include "counters/advice.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <sstream>

namespace moesweep::counters {

std::vector<std::string> perf_advice(const AdviceFacts& f) {
  std::vector<std::string> lines;
  if (f.profile_name.empty()) {
    lines.push_back(
        fmt::format("no counter profile for {} (family {} model {}): add one to profiles/counters/ "
                    "(see docs/counters.md) to get L3 and DRAM metrics",
                    f.cpu.vendor, f.cpu.family, f.cpu.model));
  }
  if (!f.hardware_probe_failure.empty() || f.uncore_pmus_missing) {
    lines.push_back(
        f.cpu.hypervisor
            ? "this is a virtual machine without a (virtual) hardware PMU: L3/DRAM counters need "
              "bare metal or PMU passthrough (KVM: -cpu host,pmu=on; clouds: a metal instance); "
              "software metrics (task-clock, context switches, page faults) are still recorded"
            : "the kernel exposes no PMU for these events: check `ls "
              "/sys/bus/event_source/devices` and that the uncore drivers are loaded "
              "(amd_uncore / intel_uncore)");
    // What works here anyway (issue 48): counts that need no PMU at all.
    lines.push_back(
        "without a PMU, `--counters sim` counts instructions and simulated cache misses per token "
        "under valgrind (sweep -t 1 --counters sim; docs/counters.md)");
  }
  if (f.permission_denied || (f.paranoid && *f.paranoid > 0 && !f.cap_perfmon)) {
    lines.push_back(
        fmt::format("kernel.perf_event_paranoid is {}: uncore (system-wide) counters need <= 0: "
                    "`sudo sysctl kernel.perf_event_paranoid=0`, or give the binary CAP_PERFMON: "
                    "`sudo setcap cap_perfmon+ep build/bin/moesweep` (Linux >= 5.8)",
                    f.paranoid ? std::to_string(*f.paranoid) : "unknown"));
  }
  return lines;
}

int compare_versions(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string pa, pb;
  for (;;) {
    const bool ha = static_cast<bool>(std::getline(sa, pa, '.'));
    const bool hb = static_cast<bool>(std::getline(sb, pb, '.'));
    if (!ha && !hb) return 0;
    const long va = ha ? std::atol(pa.c_str()) : 0, vb = hb ? std::atol(pb.c_str()) : 0;
    if (va != vb) return va < vb ? -1 : 1;
  }
}

std::vector<std::string> likwid_advice(const std::string& installed_version,
                                       const std::string& needed_version, const CpuIdentity& cpu) {
  if (needed_version.empty() || installed_version.empty() ||
      compare_versions(installed_version, needed_version) >= 0)
    return {};
  return {fmt::format(
      "liblikwid {} does not know this CPU ({}, family {} model {}); likwid >= {} does: install "
      "it (https://github.com/RRZE-HPC/likwid) and rebuild, or use --counters perf",
      installed_version, cpu.model_name, cpu.family, cpu.model, needed_version)};
}

}  // namespace moesweep::counters
