#pragma once
// How a Comparison is shown: a Markdown report for people and CI logs, and
// JSON for tools. Both carry the same facts, mismatches included.
#include <nlohmann/json.hpp>

#include <string>

#include "results/compare.hpp"

namespace moesweep {

std::string comparison_markdown(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);
// compare's exit status for the gate: 0 pass, 4 regression, 5 inconclusive.
int gate_exit_code(const GateSummary& g);
// "0.951 [0.804, 1.125], MDE 19% ?": the ratio, its 95% CI and MDE, and `?`
// where the cell is unable to tell (unable_to_tell).
std::string ratio_cell(const MetricComparison& m);
// Not significant, and the change the cell reports is smaller than its MDE:
// it cannot tell that change from noise.
bool unable_to_tell(const MetricComparison& m);

}  // namespace moesweep
