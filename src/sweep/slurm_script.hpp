#pragma once
// The sbatch array script `moesweep slurm` prints: one array task per shard,
// a dependent merge job. Text only (tested structurally), no Slurm needed.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace moesweep {

struct SlurmScriptOptions {
  std::string partition, constraint, time, account;  // empty: not written
  bool shared = false;                               // true: no --exclusive
  std::string moesweep;                              // the binary the nodes run
  std::string db;                                    // empty: PLAN/moesweep.sqlite
};

// `plan_index` is DIR/plan.json (shard_count, max_threads, plan_id, name).
std::string slurm_script(const nlohmann::json& plan_index, const std::filesystem::path& plan_dir,
                         const SlurmScriptOptions& opts);

// A word for a POSIX shell: single-quoted unless it is plainly safe.
std::string shell_quote(const std::string& word);

}  // namespace moesweep
