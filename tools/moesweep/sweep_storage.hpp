#pragma once
// Glue between `moesweep sweep` and the results layer: the database sink,
// resume checks, and the dry-run time estimate from earlier runs.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "results/sink.hpp"
#include "sweep/plan.hpp"
#include "sweep_options.hpp"

namespace moesweep::cli {

// The database a run writes to, as an absolute path (so the printed --resume
// command finds it from any directory); nullopt for none (--no-db). A resumed
// run keeps the one its meta.json names: a --db naming another, or --no-db
// when it has one, is refused (exit 2) rather than splitting the run's points
// over two stores. `resumed_meta` is null for a new run.
std::optional<std::filesystem::path> run_database(const SweepOptions& opts, bool db_given,
                                                  bool no_db_given,
                                                  const nlohmann::json* resumed_meta);
// Opens (and so checks) the database before anything else is created.
std::unique_ptr<RecordSink> open_database_sink(const std::filesystem::path& db);
// --resume continues a run with its own settings: `given` names the flags
// typed beside it that would be ignored, refused with exit 2 when any.
void refuse_flags_on_resume(const std::vector<std::string>& given);
// Every model file of the plan is a readable GGUF (UserError otherwise).
void check_model_files(const Plan& plan);
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
