#pragma once
// `moesweep report FLEET`: a directory `moesweep merge` wrote for a fleet
// (fleet.json, one merged run per machine class) gets the hardware table.
#include <filesystem>

namespace moesweep::cli {

bool is_fleet_dir(const std::filesystem::path& dir);
// Prints the hardware table and writes it to DIR/fleet.md; returns the exit code.
int report_fleet(const std::filesystem::path& dir);

}  // namespace moesweep::cli
