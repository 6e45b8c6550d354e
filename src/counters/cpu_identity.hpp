#pragma once
// Which CPU this is (util/cpuinfo.hpp) and how its NUMA nodes sit on sockets.
#include <filesystem>
#include <optional>
#include <string>

#include "util/cpuinfo.hpp"

namespace moesweep::counters {

// The reader lives in util (hw's --version reads it too).
using moesweep::CpuIdentity;
using moesweep::read_cpu_identity;

// NUMA nodes that hold CPUs, per socket, from <sysfs_root>/devices/system
// (node*/cpulist, cpu*/topology/physical_package_id): 1 in AMD's NPS1 mode, 2
// or 4 in NPS2/NPS4. nullopt when the tree does not say.
std::optional<int> numa_nodes_per_socket(const std::filesystem::path& sysfs_root = "/sys");

}  // namespace moesweep::counters
