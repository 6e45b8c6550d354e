#pragma once
// `moesweep compare --metric instructions,ll_misses,...`: the exact gate over
// --counters sim runs (results/count_compare.hpp), printed.
#include <set>
#include <string>

#include "results/compare_sides.hpp"

namespace moesweep::cli {

// Exit status: 0 the same within the tolerance, 4 more work per token, 5 inconclusive.
// What compare prints and writes: JSON, or Markdown (a terminal's, or --wide);
// `file` (--out) gets the wide Markdown.
struct CompareOutput {
  bool json = false, wide = false;
  std::string file;
};

int run_count_compare(const CompareSides& sides, const std::string& metrics,
                      const std::string& tolerance, const std::set<std::string>& ignore,
                      const CompareOutput& output);

}  // namespace moesweep::cli
