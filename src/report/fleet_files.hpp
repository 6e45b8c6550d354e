#pragma once
// The files of a fleet directory (`moesweep merge` over several machine
// classes, issue 13): fleet.md (the hardware table, the efficiency fitted
// across the hosts, the figure) and fleet.json (the runs index and the rows).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "predict/fleet_fit.hpp"

namespace moesweep {

// A directory `merge` wrote for a fleet: it has fleet.json.
bool is_fleet_dir(const std::filesystem::path& dir);

// Writes fleet.md (the table, the fitted efficiency when 2+ hosts allow it,
// the figure `figure` when not "") and fleet.json ("runs": the index merge
// wrote, "table": the rows). Returns the warning the caller prints: the
// engine builds differ between members (fleet_engine_note), or "".
std::string write_fleet_files(const std::filesystem::path& dir, const std::string& plan_id,
                              const nlohmann::json& runs_index,
                              const std::vector<FleetMember>& members,
                              const std::string& figure = "");

}  // namespace moesweep
