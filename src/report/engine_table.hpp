#pragma once
// sweep --engine a,b (issue 19): the engines side by side, as
// compare-llama-bench.py puts two commits, cell by cell. Per point, S_PP and
// S_TG of each engine, the ratio b/a with its 95% CI and the verdict of the
// project's test (compare's: results/compare.hpp) at its default threshold.
#include <string>
#include <vector>

#include "results/record.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

// One Markdown table per engine after the first (each against the first);
// "" when the records hold fewer than two engines.
// kCompact leaves the means out and gives the MDE its own column.
std::string engines_side_by_side(const std::vector<Record>& records,
                                 TableWidth width = TableWidth::kWide);

}  // namespace moesweep
