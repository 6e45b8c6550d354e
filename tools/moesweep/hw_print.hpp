#pragma once
// `moesweep hw`'s text: the CPU, the engine, the topology, the hardware
// profile, and the bandwidth, cache and noise measurements (or how to take them).
#include "hw/machine_report.hpp"

namespace moesweep::cli {

// What `--bandwidth` / `--cache` / `--noise` just measured: its full table is
// printed, and where it was cached.
struct MeasuredNow {
  bool bandwidth = false, cache = false, noise = false;
};
void print_machine(const MachineReport& m, const MeasuredNow& now);

}  // namespace moesweep::cli
