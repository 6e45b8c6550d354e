#pragma once
// `moesweep l3 TRACE --run RUN`: prints the simulation's prediction next to
// what the counter backends measured in a sweep of the same model
// (analysis/l3_counters.hpp); "unavailable (reason)" where the counters were not.
#include <filesystem>

#include "analysis/l3_analysis.hpp"

namespace moesweep::cli {

void print_counters_beside_prediction(const L3Analysis& a, const std::filesystem::path& run_dir);

}  // namespace moesweep::cli
