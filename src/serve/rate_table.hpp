#pragma once
// An open-loop workload's tables, from its summary's "rates" (and
// "capacity"): one row per rate with throughput, the client's lag, goodput
// and the prompt cache; the latency percentiles per rate; each rate's notes;
// the capacity line. And the run's capacities, one row per server
// configuration and workload, for the end of a run with several.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace moesweep {

std::string rate_tables(const nlohmann::json& workload_summary);
// "" when no summary has a capacity.
std::string capacity_table(const std::vector<nlohmann::json>& workload_summaries);

}  // namespace moesweep
