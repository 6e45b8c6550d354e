#include "sweep/this_machine.hpp"

#include <unistd.h>

#include <cstdlib>

#include "engine/engine.hpp"
#include "hw/build_info.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/topology.hpp"
#include "util/error.hpp"

namespace moesweep {

MachineClass this_machine_class() {
  uint64_t l3 = 0;  // a VM that hides its caches shows none; that is part of its class
  try {
    l3 = probe_topology().l3_total_bytes();
  } catch (const UserError&) {
    MachineClass c = machine_class_from_build(build_info_json(engine_facts()), 0);
    c.l3_bytes.reset();  // hwloc failed: not known, rather than "none"
    return c;
  }
  return machine_class_from_build(build_info_json(engine_facts()), l3);
}

NodeFacts node_facts() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  const CpuInfo cpu = cpu_info();
  NodeFacts facts;
  facts.host = host;
  facts.cpu_model = cpu.model_name;
  facts.logical_cpus = cpu.logical_cpus;
  facts.hardware_profile = match_hardware_profile(cpu.model_name).name;
  nlohmann::json slurm = nlohmann::json::object();
  for (const char* var :
       {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_NODELIST",
        "SLURM_CLUSTER_NAME", "SLURM_JOB_PARTITION", "SLURM_RESTART_COUNT"})
    if (const char* v = std::getenv(var)) slurm[var] = v;
  if (!slurm.empty()) facts.untyped["slurm"] = slurm;
  return facts;
}

}  // namespace moesweep
