#pragma once
// What a serve run prints and keeps: the seeds' per-request table
// (sweep-bench shape + cache_n and the client's clock), a summary per
// workload, and requests.jsonl / summary.json / tables.md in the run directory.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "serve/workload_runner.hpp"

namespace moesweep {

double percentile(std::vector<double> v, double p);  // nearest rank; 0 for none

// Task | PP | TG | N_KV | T_PP s | S_PP t/s | T_TG s | S_TG t/s | cache_n | TTFT ms | ITL p50 ms |
// E2E ms
std::string request_table(const WorkloadRun& run);
// Throughput, percentiles, cache hit ratio, cold vs warm, /metrics deltas.
nlohmann::json workload_summary(const WorkloadRun& run);
std::string summary_text(const nlohmann::json& summary);
nlohmann::json request_json(const std::string& workload, const RequestRecord& rec);
// The server's own prompt-cache hit ratio between two /metrics readings:
// llama-server's cached / (cached + processed) prompt tokens, or vLLM's
// prefix-cache hits / queries; {"hit_ratio": null, ...} when it has neither.
nlohmann::json server_cache_hits(const std::map<std::string, double>& before,
                                 const std::map<std::string, double>& after);

}  // namespace moesweep
