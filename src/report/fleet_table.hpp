#pragma once
// The hardware table of a fleet (one plan merged per machine class, issue 13):
// host, CPU, cores, L3, measured bandwidth, and the best S_PP / S_TG over the
// thread settings at the shallowest and the deepest depth, each S_TG with its
// decode efficiency against predict's roofline for that host's bandwidth.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "predict/fleet_fit.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

// kWide: fleet.md's columns; kCompact: a terminal's (hosts, bandwidth, decode).
std::string fleet_table(const std::vector<FleetMember>& members,
                        TableWidth width = TableWidth::kWide);
// The same rows for fleet.json ("table"): numbers, or null with the reason.
nlohmann::json fleet_table_json(const std::vector<FleetMember>& members);

// "" when every member ran the same engine build; else one line naming each
// member's engine (release, commit, native or portable target): their speeds
// then mix the hardware with the build.
std::string fleet_engine_note(const std::vector<FleetMember>& members);

}  // namespace moesweep
