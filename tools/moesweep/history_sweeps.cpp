#include "history_sweeps.hpp"

#include <fmt/format.h>

#include "child_sweeps.hpp"

namespace moesweep::cli {

// The engines as one --engine list (wall time), or one sweep each (counts).
std::vector<EngineSweep> history_sweeps(const HistoryArgs& a, const std::vector<std::string>& names,
                                        const std::filesystem::path& dir) {
  EngineSweep sweep{
      a.profile.empty() ? (a.counts ? "ci-counts" : "ci-ab") : a.profile, {}, dir, {}, a.quiet};
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ",") + n;
  if (!a.counts) {
    sweep.overrides["engine"] = all;
    return {sweep};
  }
  sweep.overrides["counters"] = "sim";
  if (names.size() > 1) sweep.overrides["twin-for"] = all;
  std::vector<EngineSweep> out;
  for (const std::string& n : names) {
    out.push_back(sweep);
    out.back().overrides["engine"] = n;
    if (a.jobs > 1) out.back().out_dir = dir / n;
  }
  return out;
}

std::vector<EngineSweepRun> measure_history(const std::vector<EngineSweep>& sweeps, int jobs) {
  if (jobs > 1) {
    fmt::print(stderr,
               "[history] measuring {} releases, {} at once (logs: */sweep.log beside the runs)\n",
               sweeps.size(), jobs);
    return run_engine_sweeps_in_children(sweeps, jobs);
  }
  std::vector<EngineSweepRun> runs;
  for (const EngineSweep& sweep : sweeps) {
    runs.push_back(run_engine_sweep(sweep));
    if (runs.back().status == RunStatus::kInterrupted) break;
  }
  return runs;
}

}  // namespace moesweep::cli
