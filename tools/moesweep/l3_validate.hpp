#pragma once
// `moesweep l3 RUN`: the cache models validated against a working-set run
// recorded with --trace-routing (experiments/l3_validation_run.hpp): predicted
// and measured S_TG per twin, each model's error, the best; the files
// written (RUN/l3_validation/validation.json and l3_validation.png).
#include <filesystem>

#include "experiments/l3_validation_run.hpp"

namespace moesweep::cli {

void print_l3_validation(const L3ValidationOutput& out);
int run_l3_validation(const std::filesystem::path& run_dir, bool plot);

}  // namespace moesweep::cli
