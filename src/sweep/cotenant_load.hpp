#pragma once
// The co-tenant's side (`moesweep __cotenant`, started by CotenantProcess):
// runs one load on the CPUs it was pinned to until SIGTERM, then prints its
// own throughput. Protocol on stdout: "ready" once the load runs, then one
// JSON line {"kind", "seconds", "throughput", "unit"} after SIGTERM.
#include <string>
#include <vector>

namespace moesweep {

struct CotenantLoad {
  std::string kind;       // stream, compute or cmd
  std::vector<int> cpus;  // one worker pinned to each (stream, compute)
  std::string command;    // cmd: run by /bin/sh -c in its own process group
};

// Blocks until SIGTERM (or SIGINT); returns the exit code.
int run_cotenant_load(const CotenantLoad& load);

}  // namespace moesweep
