#pragma once
// The second half of `moesweep gate` (gate_run.hpp): the comparison of the
// run's two sides, and every report it leaves beside the run (compare.md,
// compare.json, gate.md, junit.xml, $GITHUB_STEP_SUMMARY).
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>

#include "compare_options.hpp"
#include "results/compare_sides.hpp"

namespace moesweep::cli {

struct GateSides {
  bool counts = false;  // the exact gate: count metrics
  CompareChoice choice;
  CompareSides sides;
  int failed_points = 0;  // points the sweep could not measure: a pass becomes inconclusive
};

// Compares, writes the reports into `run` and prints them; returns 0 pass, 4
// regression, 5 inconclusive. `labels` name the sides in gate.md and
// junit.xml; `started` is when the gate began (its seconds).
int judge_gate(const GateSides& g, const std::pair<std::string, std::string>& labels,
               const std::filesystem::path& run, std::chrono::steady_clock::time_point started);

}  // namespace moesweep::cli
