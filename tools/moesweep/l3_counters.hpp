#pragma once
// `moesweep l3 TRACE --run RUN`: the simulation's prediction next to what the
// counter backends measured in a sweep of the same model (per phase L3 hit
// rate and DRAM bytes per token), so that on a machine with a PMU the two can
// be compared; "unavailable (reason)" where the counters were not.
#include <filesystem>

#include "analysis/l3_analysis.hpp"

namespace moesweep::cli {

void print_counters_beside_prediction(const L3Analysis& a, const std::filesystem::path& run_dir);

}  // namespace moesweep::cli
