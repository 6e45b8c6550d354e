#pragma once
// How a Comparison is shown: a Markdown report for people and CI logs, and
// JSON for tools. Both carry the same facts, mismatches included.
#include <nlohmann/json.hpp>

#include <string>

#include "results/compare.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

// kWide keeps every column (files such as compare.md, `compare --wide`);
// kCompact fits a 120-column terminal (the figures a person decides on: per
// metric the ratio, its CI, MDE, verdict).
std::string comparison_markdown(const Comparison& c, TableWidth width = TableWidth::kWide);
// The compact table of compared points (compare_compact.cpp): the key fields
// that differ between points, then per metric ratio [95% CI], MDE, verdict;
// the fields every point shares in one line above it.
std::string compact_points_table(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);
// compare's exit status for the gate: 0 pass, 4 regression, 5 inconclusive.
int gate_exit_code(const GateSummary& g);
// "0.951 [0.804, 1.125], MDE 19% ?": the ratio, its 95% CI and MDE, and `?`
// where the cell is unable to tell (unable_to_tell).
std::string ratio_cell(const MetricComparison& m);
// "0.951 [0.804, 1.125] ?": the same without the MDE (a terminal's table
// gives the MDE its own column).
std::string compact_ratio_cell(const MetricComparison& m);
// Not significant, and the change the cell reports is smaller than its MDE:
// it cannot tell that change from noise.
bool unable_to_tell(const MetricComparison& m);

}  // namespace moesweep
