#pragma once
// What tables.md and sweep-bench/ of a run directory hold: rendered by
// src/report (report/run_tables.hpp), written by src/sweep (write_run_tables).
// Here, below both, so neither includes the other.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace moesweep {

struct RunTables {
  std::string markdown;                                    // tables.md after its title
  std::vector<std::pair<std::string, std::string>> files;  // sweep-bench/<name> -> text
  nlohmann::json noise = nlohmann::json::object();         // meta.json's "noise"
};

}  // namespace moesweep
