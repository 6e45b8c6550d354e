#pragma once
// `moesweep l3 RUN`: the cache models validated against a working-set run
// recorded with --trace-routing (analysis/l3_validation.hpp): predicted and
// measured S_TG per twin, each model's error, the best; writes
// RUN/l3_validation/validation.json and l3_validation.png.
#include <filesystem>

namespace moesweep::cli {

bool is_run_directory(const std::filesystem::path& p);
int run_l3_validation(const std::filesystem::path& run_dir, bool plot);

}  // namespace moesweep::cli
