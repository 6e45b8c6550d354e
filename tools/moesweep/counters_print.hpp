#pragma once
// `moesweep counters`' text: a counter backend's metrics, each with its status.
#include <nlohmann/json.hpp>

#include <string>

namespace moesweep::cli {

// "ok", or "unavailable: why" of a metric's or a probe's status.
std::string status_text(const nlohmann::json& status);
// One line per metric (wrapped to the terminal's width); a long reason that
// several metrics share is said once, after them.
void print_metrics(const nlohmann::json& metrics);

}  // namespace moesweep::cli
