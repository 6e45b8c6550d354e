#pragma once
// The fleet figure (issue 13): decode speed S_TG at one depth against the
// measured bandwidth of each host, one labelled point per host, with
// predict's roofline across the bandwidth range and, when two or more hosts
// allow it, the efficiency fitted across them (`predict --calibrate`).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "predict/fleet_fit.hpp"

namespace moesweep {

// plot_data.json's "fleet" entry; null when no host has a measured bandwidth
// and a decode speed at `n_kv` (`why` then says so).
nlohmann::json fleet_figure_data(const std::vector<FleetMember>& members, int n_kv,
                                 std::string* why);

}  // namespace moesweep
