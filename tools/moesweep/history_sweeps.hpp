#pragma once
// What `moesweep history` runs to measure its releases (history_run.hpp):
// the sweeps, and running them here or as --jobs child sweeps.
#include <filesystem>
#include <string>
#include <vector>

#include "engine_sweep.hpp"
#include "history_run.hpp"

namespace moesweep::cli {

// The sweeps that measure the registered engines `names`, in release order.
// Wall time: one, the engines taking turns repetition by repetition.
// Counts: one per engine (each point once), all on one twin (--twin-for, the
// newest layout every release reads); with --jobs each in dir/<name>.
std::vector<EngineSweep> history_sweeps(const HistoryArgs& a, const std::vector<std::string>& names,
                                        const std::filesystem::path& dir);

// Each sweep to its end: one after the other here, or `jobs` child sweeps at once.
std::vector<EngineSweepRun> measure_history(const std::vector<EngineSweep>& sweeps, int jobs);

}  // namespace moesweep::cli
