#pragma once
// `moesweep report` on a serve-bench run: report.md (the run's per-request
// tables, per server configuration) and figures drawn by scripts/plot from
// plot_data.json's "serve" list: TTFT by request, cache hit (cache_n /
// prompt) by request, output tokens/s by concurrency (batch workloads), and
// for open-loop workloads TTFT and TPOT p50/p99 and throughput and goodput
// against the offered rate, one line per server configuration.
#include <nlohmann/json.hpp>

#include <filesystem>

#include "report/run_report.hpp"
#include "serve/serve_compare.hpp"

namespace moesweep {

nlohmann::json serve_plot_data(const ServeRun& run);
ReportOutcome write_serve_report(const ServeRun& run, const std::filesystem::path& out_dir,
                                 bool plots);

}  // namespace moesweep
