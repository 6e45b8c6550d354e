#pragma once
// What a run directory already holds, and the rules for continuing one: the
// database a run writes to, resume checks, the finished points, and the
// dry-run time estimate from earlier runs. Used by RunSession.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "results/run_meta.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

// --db / --no-db as typed.
struct DatabaseFlags {
  std::string db;         // --db's value (its default when not typed)
  bool db_given = false;  // --db was typed
  bool no_db = false;     // --no-db was typed
};

// The database a run writes to, as an absolute path (so the printed --resume
// command finds it from any directory); nullopt for none (--no-db). A resumed
// run keeps the one its meta.json names: a --db naming another, or --no-db
// when it has one, is refused (exit 2) rather than splitting the run's points
// over two stores. `resumed_meta` is null for a new run.
std::optional<std::filesystem::path> run_database(const DatabaseFlags& flags,
                                                  const RunMeta* resumed_meta);
// --resume continues a run with its own settings: `given` names the flags
// typed beside it that would be ignored, refused with exit 2 when any.
void refuse_flags_on_resume(const std::vector<std::string>& given);
// Every model file of the plan is a readable GGUF (UserError otherwise).
void check_model_files(const Plan& plan);
std::vector<Record> load_records(const std::filesystem::path& jsonl);
// Refuses a run made by another engine build, one that already completed,
// or one that is no sweep (a serve run, a trace, a merged run).
void check_resumable(const RunMeta& meta);
// Refuses when a model file of the earlier run changed (sha256).
void check_models_unchanged(const RunMeta& meta);
// Before a resumed run appends again: a torn last line of records.jsonl or
// samples.jsonl (a killed run's) is cut off and kept in <file>.torn, never
// glued onto. Returns a note per file repaired.
std::vector<std::string> repair_run_files(const std::filesystem::path& run_dir);
// Seconds the plan would take at the mean speeds of earlier runs (same model
// names) found under results/runs; nullopt when there are none.
std::optional<double> estimate_seconds(const Plan& plan,
                                       const std::filesystem::path& runs_dir = "results/runs");

}  // namespace moesweep
