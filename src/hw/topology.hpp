#pragma once
// The machine as inference sees it: which cores exist, which of them share an
// L3 (a CCD/CCX on AMD), which NUMA node owns which memory. Read once through
// hwloc; plain values afterwards so reports and tests need no hwloc.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace moesweep {

struct L3Domain {
  uint64_t size_bytes = 0;
  std::vector<int> cpus;  // OS cpu numbers (PUs) that share this L3
};

struct NumaNode {
  int os_index = 0;
  uint64_t memory_bytes = 0;
  std::vector<int> cpus;
};

struct Topology {
  int sockets = 0;
  int cores = 0;  // physical cores
  int pus = 0;    // logical CPUs (hardware threads)
  bool smt_active = false;
  uint64_t memory_bytes = 0;  // total RAM hwloc sees
  std::vector<NumaNode> numa_nodes;
  std::vector<L3Domain> l3_domains;  // empty when the (virtual) machine hides its caches
  // One logical CPU per physical core, cores of different L3 domains taken in
  // turn: pinning N threads to the first N spreads them over the CCDs, which
  // is how a memory-bound decode reaches the most bandwidth.
  std::vector<int> spread_cpus;

  uint64_t l3_total_bytes() const;
};

// Reads the topology of the machine we run on; throws UserError if hwloc fails.
Topology probe_topology();
nlohmann::json to_json(const Topology& t);
// The inverse (topology_json.cpp): a recorded machine; UserError naming `origin`.
Topology topology_from_json(const nlohmann::json& j, const std::string& origin);
// "0-3,8,10-11" from a list of cpu numbers.
std::string cpu_list_text(std::vector<int> cpus);
// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> process_affinity();

}  // namespace moesweep
