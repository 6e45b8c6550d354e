#pragma once
// The report's per-token section (issue 46): a table of every point's
// per-token latency (p50, p90, p99, max, the slope against position within
// the sample) from the records' extra.token_times, the cost of timing tokens
// (--token-times ab) and of the routing tap (--trace-routing) where the run
// measured them; and, from the run directory's tokens.jsonl, the plots'
// data: per-token time against position for each depth (the median over the
// point's timed calls) and a latency histogram per point.
#include <nlohmann/json.hpp>

#include <string>

#include "results/run_source.hpp"

namespace moesweep {

// "" when no record carries per-token times.
std::string token_times_markdown(const LoadedRun& run);

// Adds "xy" (token_time_vs_position.png) and "token_hist"
// (token_latency_hist.png) to a report's plot data when the run directory has
// timed tokens; UserError (exit 2) for a damaged tokens.jsonl.
void add_token_plots(const LoadedRun& run, nlohmann::json& plot_data);

}  // namespace moesweep
