#pragma once
// `moesweep hw`'s text: the CPU, the engine, the topology, the hardware
// profile, and the bandwidth and cache measurements (or how to take them).
#include "hw/machine_report.hpp"

namespace moesweep::cli {

// measured_now / probed_now: `--bandwidth` / `--cache` just measured, so the
// full tables are printed and where they were cached.
void print_machine(const MachineReport& m, bool measured_now, bool probed_now);

}  // namespace moesweep::cli
