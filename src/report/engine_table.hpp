#pragma once
// sweep --engine a,b (issue 19): the engines side by side, as
// compare-llama-bench.py puts two commits, cell by cell. Per point, S_PP and
// S_TG of each engine, the ratio b/a with its 95% CI and the verdict of the
// project's test (compare's: results/compare.hpp) at its default threshold.
#include <string>
#include <vector>

#include "results/record.hpp"

namespace moesweep {

// One Markdown table per engine after the first (each against the first);
// "" when the records hold fewer than two engines.
std::string engines_side_by_side(const std::vector<Record>& records);

}  // namespace moesweep
