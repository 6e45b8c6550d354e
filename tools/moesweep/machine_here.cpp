#include "machine_here.hpp"

#include "engine/engine.hpp"
#include "hw/build_info.hpp"
#include "hw/topology.hpp"
#include "results/run_meta.hpp"
#include "util/error.hpp"

namespace moesweep::cli {

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

}  // namespace moesweep::cli
