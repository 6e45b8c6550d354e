#pragma once
// Which CPU this is, from /proc/cpuinfo: the vendor, family and model pick the
// counter profile (Zen 4 and Zen 5 differ in where DRAM traffic is counted).
#include <filesystem>
#include <optional>
#include <string>

namespace moesweep::counters {

struct CpuIdentity {
  std::string vendor;  // AuthenticAMD, GenuineIntel
  int family = -1;     // decimal, as /proc/cpuinfo prints it (Zen 5: 26)
  int model = -1;
  std::string model_name;   // "AMD EPYC 9175F 16-Core Processor"
  bool hypervisor = false;  // the "hypervisor" flag: a VM, often without a PMU
};

// Reads the first processor block; fields that are missing stay at their defaults.
CpuIdentity read_cpu_identity(const std::filesystem::path& cpuinfo = "/proc/cpuinfo");

// NUMA nodes that hold CPUs, per socket, from <sysfs_root>/devices/system
// (node*/cpulist, cpu*/topology/physical_package_id): 1 in AMD's NPS1 mode, 2
// or 4 in NPS2/NPS4. nullopt when the tree does not say.
std::optional<int> numa_nodes_per_socket(const std::filesystem::path& sysfs_root = "/sys");

}  // namespace moesweep::counters
