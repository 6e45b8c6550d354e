#pragma once
// `moesweep l3 TRACE --run RUN`: the simulation's prediction for this
// machine next to what the counter backends measured in a sweep of the same
// model (per phase L3 hit rate and DRAM bytes per token), so that on a
// machine with a PMU the two can be compared. Plain values; the CLI prints.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/l3_analysis.hpp"

namespace moesweep {

// The prediction for this machine: its measured cache when `hw --cache` ran,
// else hwloc's; nullopt when neither (hwloc reports no L3 here).
struct PredictedTraffic {
  std::string target;            // the target's name
  HitRates hits;                 // experts and hot set in one shared byte-LRU
  double weight_dram_bytes = 0;  // per token, weights only (the KV read is the run's)
};
std::optional<PredictedTraffic> predicted_traffic_here(const L3Analysis& a);

// One phase of one finished point of the run, as its counters say.
struct MeasuredPhase {
  std::string model;
  int threads = 0, n_kv = 0;
  std::string phase;  // "PP" or "TG"
  // The counter's value as recorded: a number, or {"unavailable": why};
  // nullopt when the run did not record it.
  std::optional<nlohmann::json> l3_hit_rate, dram_bytes_per_token;
};
// UserError when `run_dir` has no records.jsonl.
std::vector<MeasuredPhase> measured_phases(const std::filesystem::path& run_dir);

}  // namespace moesweep
