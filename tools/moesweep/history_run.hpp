#pragma once
// `moesweep history`: a metric's path across releases and where it changed
// (report/history.hpp). The releases come as engines (--engines, each a
// registered name, a release version or a checkout, registered on first
// use), as a range of pinned releases (--releases A..B), or as the stored
// runs of one machine class (--baselines), or are read again from a finished
// wall-time history's sweep (--run). Engines are measured in one sweep
// that interleaves them (--counts: one run per engine under valgrind, --jobs
// of them at once).
// Writes history.md, history.json and one PNG per metric beside the run.
#include <string>

namespace moesweep::cli {

struct HistoryArgs {
  std::string engines, releases, baselines, run;
  bool counts = false;
  std::string profile;  // "" = ci-ab, ci-counts with --counts
  std::string out_dir = "results/history";
  double tolerance = 0.5;  // percent
  double alpha = 0.01;
  int permutations = 999;
  double min_step = 3;  // percent (wall time)
  int jobs = 1;         // --counts: releases measured at once (child sweeps)
  bool dry_run = false, quiet = false;
};

int run_history(const HistoryArgs& args);

}  // namespace moesweep::cli
