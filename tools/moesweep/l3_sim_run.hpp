#pragma once
// `moesweep l3-run --simulate` (experiments/l3_sim_experiment.hpp): its flags,
// and what it prints.
#include <CLI/CLI.hpp>

#include <string>

#include "experiments/l3_experiment.hpp"

namespace moesweep::cli {

struct L3SimCli {
  bool simulate = false;
  std::string sim_llc;  // "" = 4..512 MiB
  std::string skews = "0,1.5";
  double pool_mib = 1024;
};

void add_l3_sim_options(CLI::App& cmd, L3SimCli& s);
// Writes l3_sim.json, l3_sim.md and the plots into one folder of runs; 0 when done.
int run_l3_sim(const L3SimCli& s, const L3RunOptions& o);

}  // namespace moesweep::cli
