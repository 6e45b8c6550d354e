#pragma once
// serve-bench's own files read back (compare, report), each by one typed
// reader: requests.jsonl (a line per request), summary.json (a summary per
// workload, also meta.json's "workloads") and meta.json's serve facts. Every
// field the readers' users touch is checked for type and range first; a bad
// one is a UserError naming the file, line and field (exit 2).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/run_meta.hpp"
#include "util/jsonl_file.hpp"

namespace moesweep {

// The lines of requests.jsonl, each an object whose fields have their types:
// ok (bool), config/workload/task/error (text), numbers finite and not
// negative where they count (tokens, ms), itl_ms a list of numbers.
struct ServeRequestsFile {
  std::vector<nlohmann::json> lines;
  std::optional<TornLine> torn;  // a killed run's last line, left out
};
ServeRequestsFile read_serve_requests(const std::filesystem::path& file);
// One request line's check (origin names file and line).
void check_request_line(const nlohmann::json& line, const std::string& origin);

// One workload summary (serve_output's workload_summary), checked: workload,
// kind, config (text), requests/failed (counts), levels[] with concurrency and
// output_tokens_per_s.
void check_workload_summary(const nlohmann::json& summary, const std::string& origin,
                            const std::string& path = "");
// summary.json: a list of workload summaries.
std::vector<nlohmann::json> read_serve_summary(const std::filesystem::path& file);

// meta.json's serve facts ("kind": "serve"), its workload summaries checked;
// none (empty) for another kind of run.
ServeFacts serve_facts_of(const RunMeta& meta);

}  // namespace moesweep
