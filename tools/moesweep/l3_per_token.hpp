#pragma once
// `moesweep l3 RUN --per-token`: each timed token's decode time (or, with
// --simulated, its simulated LL misses) against the byte-LRU model's
// predicted miss bytes at every cache size (experiments/per_token_l3.hpp);
// prints the profile, the best size with its interval, the slope and the
// test against no cache term; writes RUN/l3_per_token/.
#include <filesystem>

#include "experiments/per_token_l3.hpp"

namespace moesweep::cli {

int run_l3_per_token(const std::filesystem::path& run, const PerTokenOptions& options, bool plot);

}  // namespace moesweep::cli
