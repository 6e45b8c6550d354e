#pragma once
// `moesweep sweep --dry-run`: the plan as text (models, contexts, threads,
// memory each context needs against what is free, the cost and its time).
#include <string>

#include "sweep/plan.hpp"
#include "sweep/sample_length.hpp"

namespace moesweep::cli {

// Prints the plan and how long its samples last to stdout; returns the exit code (0).
int print_dry_run(const Plan& plan, const std::string& origin, const SampleTimeChoice& samples);

}  // namespace moesweep::cli
