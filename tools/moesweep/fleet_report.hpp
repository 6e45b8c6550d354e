#pragma once
// `moesweep report FLEET`: a directory `moesweep merge` wrote for a fleet
// (fleet.json, one merged run per machine class) gets the hardware table
// (fleet.md, and its rows in fleet.json) and the figure of S_TG against
// measured bandwidth with predict's roofline (fleet_bandwidth.png).
#include <filesystem>
#include <string>
#include <vector>

#include "predict/fleet_fit.hpp"

namespace moesweep::cli {

bool is_fleet_dir(const std::filesystem::path& dir);

// fleet.md (the table, the fitted efficiency when 2+ hosts allow it, the
// figure `figure` when not "") and fleet.json ("runs": the index merge
// wrote, "table": the rows).
void write_fleet_files(const std::filesystem::path& dir, const std::string& plan_id,
                       const nlohmann::json& runs_index, const std::vector<FleetMember>& members,
                       const std::string& figure = "");

struct FleetReportOptions {
  int n_kv = -1;  // the figure's depth; -1: the smallest measured
  bool plots = true;
};
// Prints the hardware table, rewrites fleet.md/fleet.json, draws the figure;
// returns the exit code.
int report_fleet(const std::filesystem::path& dir, const FleetReportOptions& options);

}  // namespace moesweep::cli
