#pragma once
// A serve workload is data (profiles/workloads/<name>.json), not code: its
// kind picks the request pattern, the numbers size it. Every loop it makes is
// bounded by these counts.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

struct Workload {
  std::string name, kind, description;  // kind: prompt-cache | multi-turn | batch | cold-start
  uint64_t seed = 1;
  int system_tokens = 1024;  // the shared system digest S
  int suffix_tokens = 64;    // prompt-cache: each request's own part; batch: a document
  int requests = 4;          // prompt-cache: K requests; batch: N documents; multi-turn: turns
  int n_predict = 16;        // fixed output length (ignore_eos)
  std::string break_cache = "none";    // prompt-cache: none | timestamp | whitespace
  std::vector<int> concurrency = {1};  // batch: client counts to try
  std::filesystem::path source;

  int max_prompt_tokens() const;  // the longest prompt it sends (for -c)
  nlohmann::json to_json() const;
};

// A name from profiles/workloads or a JSON file path; UserError when missing,
// malformed or out of bounds.
Workload load_workload(const std::string& name_or_path);
std::vector<std::string> workload_names();

}  // namespace moesweep
