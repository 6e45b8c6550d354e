#include "hw/topology.hpp"

#include <sched.h>

#include <fmt/format.h>
#include <hwloc.h>

#include <algorithm>
#include <fstream>
#include <memory>

#include <unistd.h>

#include "util/error.hpp"

namespace moesweep {

namespace {

using TopologyHandle = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

std::vector<int> cpus_of(hwloc_const_cpuset_t set) {
  std::vector<int> cpus;
  unsigned id = 0;
  hwloc_bitmap_foreach_begin(id, set) {
    cpus.push_back(static_cast<int>(id));
  }
  hwloc_bitmap_foreach_end();
  return cpus;
}

// hwloc reports SMT siblings per core; the kernel switch says whether they are in use.
bool smt_switch_active(bool siblings_seen) {
  std::ifstream in("/sys/devices/system/cpu/smt/active");
  int active = 0;
  if (in >> active) return active != 0;
  return siblings_seen;
}

// Round-robin over L3 domains, first PU of each core: consecutive threads land
// on different CCDs. Without L3 information, cores in order.
std::vector<int> spread_order(hwloc_topology_t topo, const std::vector<L3Domain>& l3) {
  std::vector<std::vector<int>> per_domain;
  const int n_cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  std::vector<int> first_pu_of_core;
  for (int i = 0; i < n_cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
    int first = hwloc_bitmap_first(core->cpuset);
    if (first >= 0) first_pu_of_core.push_back(first);
  }
  if (first_pu_of_core.empty()) {  // no core objects: fall back to PUs
    const int n_pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    for (int i = 0; i < n_pus; ++i)
      first_pu_of_core.push_back(
          static_cast<int>(hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i)->os_index));
  }
  if (l3.size() <= 1) return first_pu_of_core;
  per_domain.resize(l3.size());
  for (int cpu : first_pu_of_core) {
    for (size_t d = 0; d < l3.size(); ++d) {
      if (std::find(l3[d].cpus.begin(), l3[d].cpus.end(), cpu) != l3[d].cpus.end()) {
        per_domain[d].push_back(cpu);
        break;
      }
    }
  }
  std::vector<int> order;
  for (size_t round = 0; order.size() < first_pu_of_core.size(); ++round) {
    bool any = false;
    for (auto& cores : per_domain) {
      if (round < cores.size()) {
        order.push_back(cores[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return order;
}

}  // namespace

uint64_t Topology::l3_total_bytes() const {
  uint64_t total = 0;
  for (const auto& d : l3_domains) total += d.size_bytes;
  return total;
}

Topology probe_topology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0 || hwloc_topology_load(raw) != 0) {
    if (raw) hwloc_topology_destroy(raw);
    throw UserError("hwloc could not read this machine's topology", "a readable /sys and /proc",
                    "run outside a restricted sandbox, or check that hwloc works (`lstopo`)");
  }
  TopologyHandle topo(raw, &hwloc_topology_destroy);
  Topology t;
  t.sockets = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE);
  t.cores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  t.pus = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PU);
  t.smt_active = smt_switch_active(t.pus > t.cores);
  // Some VMs (virtio-mem, ballooning) show less in the NUMA node than the
  // kernel's MemTotal; the larger figure is what a model can use.
  const uint64_t kernel_total =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  t.memory_bytes = std::max<uint64_t>(hwloc_get_root_obj(raw)->total_memory, kernel_total);

  const int n_numa = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n_numa; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(raw, HWLOC_OBJ_NUMANODE, i);
    t.numa_nodes.push_back({static_cast<int>(node->os_index), node->attr->numanode.local_memory,
                            cpus_of(node->cpuset)});
  }
  const int n_l3 = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_L3CACHE);
  for (int i = 0; i < n_l3; ++i) {
    hwloc_obj_t cache = hwloc_get_obj_by_type(raw, HWLOC_OBJ_L3CACHE, i);
    t.l3_domains.push_back({cache->attr->cache.size, cpus_of(cache->cpuset)});
  }
  t.spread_cpus = spread_order(raw, t.l3_domains);
  return t;
}

std::string cpu_list_text(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

nlohmann::json to_json(const Topology& t) {
  nlohmann::json numa = nlohmann::json::array(), l3 = nlohmann::json::array();
  for (const auto& n : t.numa_nodes)
    numa.push_back({{"os_index", n.os_index},
                    {"memory_bytes", n.memory_bytes},
                    {"cpus", cpu_list_text(n.cpus)}});
  for (const auto& d : t.l3_domains)
    l3.push_back({{"size_bytes", d.size_bytes}, {"cpus", cpu_list_text(d.cpus)}});
  return {{"sockets", t.sockets},
          {"cores", t.cores},
          {"logical_cpus", t.pus},
          {"smt_active", t.smt_active},
          {"memory_bytes", t.memory_bytes},
          {"numa_nodes", numa},
          {"l3_domains", l3},
          {"l3_total_bytes", t.l3_total_bytes()},
          {"spread_cpus", t.spread_cpus}};
}

std::vector<int> process_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

}  // namespace moesweep
