#pragma once
// What a run records about the machine it measures on: the machine class
// (meta.json "machine_class"; `baseline find` and `compare` look runs up by
// it) and the node's facts (meta.json "node", issue 13). Probed here, never
// from flags.
#include "results/machine_class.hpp"
#include "results/run_meta.hpp"

namespace moesweep {

// CPU, L3 (unset when hwloc cannot tell), CPU features and engine build.
MachineClass this_machine_class();

// Host, CPU model, logical CPUs, the hardware profile matched, and the
// Slurm job ids when run under Slurm.
NodeFacts node_facts();

}  // namespace moesweep
