#pragma once
// tables.md's "counts per token" section: what --counters sim counted per
// phase and per token (instructions, data reads and writes, D1 and LL misses,
// the LL hit rate, DRAM bytes), under a header naming the simulated cache.
// Empty when no record carries simulated counts.
#include <string>
#include <vector>

#include "results/record.hpp"

namespace moesweep {

std::string count_tables(const std::vector<Record>& records);

}  // namespace moesweep
