#pragma once
// Which CPU this is, from /proc/cpuinfo: the one reader behind `--version`,
// meta.json's "cpu" and the counter profile's choice (Zen 4 and Zen 5 differ in
// where DRAM traffic is counted).
#include <filesystem>
#include <string>

namespace moesweep {

struct CpuIdentity {
  std::string vendor;  // AuthenticAMD, GenuineIntel
  int family = -1;     // decimal, as /proc/cpuinfo prints it (Zen 5: 26)
  int model = -1;
  std::string model_name;   // "AMD EPYC 9175F 16-Core Processor"
  bool hypervisor = false;  // the "hypervisor" flag: a VM, often without a PMU
  bool amx = false;         // the "amx_tile" flag: Intel's tile matrix unit is advertised
};

// Reads the first processor block; fields that are missing stay at their defaults.
CpuIdentity read_cpu_identity(const std::filesystem::path& cpuinfo = "/proc/cpuinfo");

}  // namespace moesweep
