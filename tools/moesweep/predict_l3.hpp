#pragma once
// `predict --trace FILE`: prints the decode roofline with and without the L3
// term (analysis/l3_term_predict.hpp).
#include "analysis/l3_term_predict.hpp"

namespace moesweep::cli {

// Prints the rooflines; UserError without a model profile or a readable trace.
void print_l3_term(const PredictL3Input& in);

}  // namespace moesweep::cli
