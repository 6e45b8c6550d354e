#pragma once
// The hardware table of a fleet (one plan merged per machine class, issue 13):
// host, CPU, cores, L3, measured bandwidth, and the best S_PP / S_TG over the
// thread settings at the shallowest and the deepest depth.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/record.hpp"

namespace moesweep {

struct FleetMember {
  nlohmann::json meta;  // the merged run's meta.json
  std::vector<Record> records;
};

std::string fleet_table(const std::vector<FleetMember>& members);

}  // namespace moesweep
