#pragma once
// `moesweep l3`'s text: popularity, reuse, the hit-rate curve and the
// predictions per cache target, band of cache models included.
#include "analysis/l3_analysis.hpp"

namespace moesweep::cli {

void print_analysis(const L3Analysis& a);

}  // namespace moesweep::cli
