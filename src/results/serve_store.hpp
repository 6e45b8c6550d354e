#pragma once
// serve-bench's records in the results database (the serve kind, schema v3: one row per server configuration and workload):
// the run row, one serve_workloads row per workload and one serve_requests
// row per request. Plain JSON in, so results/ knows nothing of serve/.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

struct ServeRunRow {
  std::string run_id, name, run_dir, status;  // status: complete | interrupted | points_failed
  nlohmann::json meta;                        // meta.json ("kind": "serve")
};

// Upserts the run and replaces the workload's rows in one transaction.
// `summary`: serve_output's workload_summary; `requests`: request_json rows.
void store_serve_workload(const std::filesystem::path& db, const ServeRunRow& run,
                          const std::string& server, const std::string& model,
                          const nlohmann::json& summary,
                          const std::vector<nlohmann::json>& requests);

}  // namespace moesweep
