#pragma once
// Each subcommand lives in its own cmd_<name>.cpp and registers itself here:
// it adds its options to `app` and, when chosen, sets `run` to the work.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "cli_checks.hpp"

namespace moesweep::cli {

using CommandRunner = std::function<int()>;

// The command line as typed (recorded in meta.json).
const std::vector<std::string>& invocation();

void add_synth_command(CLI::App& app, CommandRunner& run);
void add_sweep_command(CLI::App& app, CommandRunner& run);
void add_list_command(CLI::App& app, CommandRunner& run);
void add_hw_command(CLI::App& app, CommandRunner& run);
void add_inspect_command(CLI::App& app, CommandRunner& run);
void add_predict_command(CLI::App& app, CommandRunner& run);
void add_compare_command(CLI::App& app, CommandRunner& run);
void add_baseline_command(CLI::App& app, CommandRunner& run);
void add_report_command(CLI::App& app, CommandRunner& run);
void add_export_command(CLI::App& app, CommandRunner& run);
void add_counters_command(CLI::App& app, CommandRunner& run);
void add_plan_command(CLI::App& app, CommandRunner& run);    // cmd_plan.cpp (issue 13)
void add_merge_command(CLI::App& app, CommandRunner& run);   // cmd_merge.cpp
void add_slurm_command(CLI::App& app, CommandRunner& run);   // cmd_slurm.cpp
void add_trace_command(CLI::App& app, CommandRunner& run);   // cmd_trace.cpp
void add_l3_command(CLI::App& app, CommandRunner& run);      // cmd_l3.cpp
void add_l3_run_command(CLI::App& app, CommandRunner& run);  // cmd_l3_run.cpp (issue 22)
void add_serve_bench_command(CLI::App& app, CommandRunner& run);
void add_engine_command(CLI::App& app, CommandRunner& run);  // cmd_engine.cpp (issue 19)
void add_engine_releases_command(CLI::App& engine, CommandRunner& run);  // cmd_engine_releases.cpp
void add_cotenant_command(CLI::App& app, CommandRunner& run);  // cmd_cotenant.cpp (hidden)
void add_gate_command(CLI::App& app, CommandRunner& run);      // cmd_gate.cpp (issue 45)
void add_history_command(CLI::App& app, CommandRunner& run);   // cmd_history.cpp (issue 45)
void add_bisect_command(CLI::App& app, CommandRunner& run);    // cmd_bisect.cpp (issue 45)

}  // namespace moesweep::cli
