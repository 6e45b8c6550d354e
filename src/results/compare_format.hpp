#pragma once
// How a Comparison is shown: a Markdown report for people and CI logs, and
// JSON for tools. Both carry the same facts, mismatches included.
#include <nlohmann/json.hpp>

#include <string>

#include "results/compare.hpp"

namespace moesweep {

std::string comparison_markdown(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);

}  // namespace moesweep
