#pragma once
// Glue between `moesweep sweep` and the results layer: the database sink,
// resume checks, and the dry-run time estimate from earlier runs.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "results/sink.hpp"
#include "sweep/plan.hpp"

namespace moesweep::cli {

void add_database_sink(SinkSet& sinks, const std::string& db_path);
std::vector<Record> load_records(const std::filesystem::path& jsonl);
// Keys of the points a run already measured successfully.
std::set<std::string> finished_keys(const std::filesystem::path& jsonl);
// RUN/sweep-bench/NN-<config>.md: sweep-bench's plain table per configuration
// (report/sweep_tables.hpp), rewritten whole from the run's records.
void write_sweep_bench_files(const std::filesystem::path& run_dir,
                             const std::vector<Record>& records);
// Refuses a run made by another engine build, or one that already completed.
void check_resumable(const nlohmann::json& meta);
// Refuses when a model file of the earlier run changed (sha256).
void check_models_unchanged(const nlohmann::json& meta);
// Seconds the plan would take at the mean speeds of earlier runs (same model
// names) found under results/runs; nullopt when there are none.
std::optional<double> estimate_seconds(const Plan& plan,
                                       const std::filesystem::path& runs_dir = "results/runs");

}  // namespace moesweep::cli
