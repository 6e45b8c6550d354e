#pragma once
// serve-bench's open-loop options (--request-rate, --burstiness,
// --max-concurrency, --duration, --num-requests, --slo, --find-capacity and
// its budget, --save-tokens, --format), as typed, and their parsing into
// serve/open_loop_workload.hpp's TrafficOptions.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "serve/open_loop_workload.hpp"

namespace moesweep::cli {

struct TrafficCli {
  std::string rates, slos, formats;
  TrafficOptions options;  // the flags that need no parsing land here directly
  void add_to(CLI::App& cmd);
  // UserError (exit 2) for a rate or an SLO that does not read.
  TrafficOptions parse() const;
};

// --request-rate's list: positive numbers or "inf".
std::vector<double> parse_rates(const std::string& text);

}  // namespace moesweep::cli
