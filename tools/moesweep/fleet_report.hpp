#pragma once
// `moesweep report FLEET`: a directory `moesweep merge` wrote for a fleet
// (fleet.json, one merged run per machine class) gets the hardware table
// (fleet.md, and its rows in fleet.json) and the figure of S_TG against
// measured bandwidth with predict's roofline (fleet_bandwidth.png).
#include <filesystem>

#include "report/fleet_files.hpp"

namespace moesweep::cli {

struct FleetReportOptions {
  int n_kv = -1;  // the figure's depth; -1: the smallest measured
  bool plots = true;
};
// Prints the hardware table, rewrites fleet.md/fleet.json, draws the figure;
// returns the exit code.
int report_fleet(const std::filesystem::path& dir, const FleetReportOptions& options);

}  // namespace moesweep::cli
