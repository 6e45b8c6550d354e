#pragma once
// tables.md's "counts per token" section: what --counters sim counted per
// phase and per token (instructions, data reads and writes, D1 and LL misses,
// the LL hit rate, DRAM bytes), under a header naming the simulated cache.
// Empty when no record carries simulated counts.
#include <string>
#include <vector>

#include "results/record.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

// kCompact: one model named once, without data reads and writes.
std::string count_tables(const std::vector<Record>& records, TableWidth width = TableWidth::kWide);

}  // namespace moesweep
