#pragma once
// The sbatch array script `moesweep slurm` prints: one array task per shard,
// a dependent merge job. Safe by construction: every value written into it
// is refused when it holds a control character (a newline would end its
// comment or #SBATCH line and start a command), every #SBATCH value is
// quoted as sbatch reads quotes, every shell word is single-quoted, and '%'
// in the log paths is doubled (sbatch expands % there).
#include <filesystem>
#include <string>

#include "cluster/shard_plan.hpp"

namespace moesweep {

struct SlurmScriptOptions {
  std::string partition, constraint, time, account;  // empty: not written
  bool shared = false;                               // true: no --exclusive
  std::string moesweep;                              // the binary the nodes run
  std::string db;                                    // empty: PLAN/moesweep.sqlite
};

// `index` is DIR/plan.json (read_plan_index). UserError for a value with a
// control character, or a plan directory with a backslash.
std::string slurm_script(const PlanIndex& index, const std::filesystem::path& plan_dir,
                         const SlurmScriptOptions& opts);

// A word for a POSIX shell: single-quoted unless it is plainly safe.
std::string shell_quote(const std::string& word);
// A value for an #SBATCH line: double-quoted, '"' and '\' escaped (sbatch's
// own reading of quotes and backslashes on those lines).
std::string sbatch_quote(const std::string& value);
// `text` inside an sbatch filename pattern, read literally: '%' doubled.
std::string slurm_pattern_literal(const std::string& text);

}  // namespace moesweep
