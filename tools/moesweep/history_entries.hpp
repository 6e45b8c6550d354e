#pragma once
// The releases of a history that are read, not measured (history_run.hpp):
// the stored runs of one machine class (--baselines), and a finished
// wall-time history's sweep (--run).
#include <filesystem>
#include <vector>

#include "history_run.hpp"
#include "report/history.hpp"

namespace moesweep::cli {

// The runs of one machine class, oldest first: a store's class of this
// machine, or a class folder itself. `dir` receives the class folder.
std::vector<HistoryEntry> stored_entries(const HistoryArgs& a, std::filesystem::path& dir);

// A finished history's sweep read again (--run): its engines in --engine's
// order, nothing measured (another --alpha or --min-step on the same samples).
// UserError (exit 2) with --counts, or for a run of fewer than two engines.
std::vector<HistoryEntry> rerun_entries(const HistoryArgs& a, std::filesystem::path& dir);

}  // namespace moesweep::cli
