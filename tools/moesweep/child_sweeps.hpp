#pragma once
// Sweeps run as child `moesweep sweep` processes, several at once
// (history --counts --jobs N).
#include <vector>

#include "engine_sweep.hpp"

namespace moesweep::cli {

// Several sweeps at once, each a child `moesweep sweep` (its own process
// group; its stderr in `<out_dir>/sweep.log`), at most `jobs` running: for
// exact counts, which no load changes, so N releases take the time of N/jobs.
// Each sweep's out_dir must be its own. A child that refuses (exit 2) is its
// own UserError, with its log named, and no further child starts; one that
// ends without a run directory is a UserError naming its log; Ctrl-C stops
// them all (status interrupted). The status is the child's exit code's.
std::vector<EngineSweepRun> run_engine_sweeps_in_children(const std::vector<EngineSweep>& sweeps,
                                                          int jobs);

}  // namespace moesweep::cli
