#include "sweep/slurm_script.hpp"

#include <fmt/format.h>

#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {

std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-./:=@%+,") == std::string::npos;
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

// After the #SBATCH lines: the merge job's submission and the shard itself.
std::string script_commands(const std::string& name, const std::string& dir,
                            const SlurmScriptOptions& opts) {
  std::string merge_flags;  // the merge job goes where the shards went
  if (!opts.partition.empty()) merge_flags += " --partition=" + shell_quote(opts.partition);
  if (!opts.account.empty()) merge_flags += " --account=" + shell_quote(opts.account);
  return fmt::format(
      "set -euo pipefail\n"
      "\n"
      "MOESWEEP={exe}\n"
      "PLAN={plan}\n"
      "RUNS=\"$PLAN/runs\"      # one run directory per shard (and machine class)\n"
      "MERGED=\"$PLAN/merged\"  # the merged run (a fleet: one per machine class in it)\n"
      "DB={db}\n"
      "\n"
      "if mkdir \"$PLAN/.merge-submitted\" 2>/dev/null; then\n"
      "  sbatch --dependency=afterany:\"$SLURM_ARRAY_JOB_ID\" --job-name=moesweep-{name}-merge \\\n"
      "    --ntasks=1 --cpus-per-task=1{merge_flags} --output=\"$PLAN/logs/merge.out\" \\\n"
      "    --wrap=\"$(printf '%q ' \"$MOESWEEP\" merge \"$RUNS\" --out \"$MERGED\" --db "
      "\"$DB\")\"\n"
      "fi\n"
      "\n"
      "srun --ntasks=1 --cpu-bind=none \\\n"
      "  \"$MOESWEEP\" sweep --shard \"$PLAN\" --out-dir \"$RUNS\" --no-db --quiet\n",
      fmt::arg("exe", shell_quote(opts.moesweep)), fmt::arg("plan", shell_quote(dir)),
      fmt::arg("db",
               opts.db.empty() ? std::string("\"$PLAN/moesweep.sqlite\"") : shell_quote(opts.db)),
      fmt::arg("name", name), fmt::arg("merge_flags", merge_flags));
}

}  // namespace

std::string slurm_script(const nlohmann::json& index, const std::filesystem::path& plan_dir,
                         const SlurmScriptOptions& opts) {
  const std::string origin = (plan_dir / "plan.json").string();
  const int shards = require_field<int>(index, "shard_count", origin);
  const int threads = std::max(1, optional_field<int>(index, "max_threads", 1, origin));
  const std::string id = require_field<std::string>(index, "plan_id", origin);
  std::string name = optional_field<std::string>(index, "name", "adhoc", origin);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  if (shards < 1)
    throw UserError(fmt::format("{} has shard_count {}", origin, shards), "1 or more shards",
                    "write the plan again with `moesweep plan --shards N`");
  const std::string dir = plan_dir.string();
  std::string s = fmt::format(
      "#!/bin/bash\n"
      "# moesweep: plan {id} ({name}), {n} shard(s) as one Slurm array, then a merge job.\n"
      "# Written by `moesweep slurm {dir}`; edit what you need, then: sbatch <this file>\n"
      "#\n"
      "# --exclusive      a benchmark shares no node: another job's threads or memory\n"
      "#                  traffic would be measured as ours (moesweep slurm --shared drops it)\n"
      "# --cpus-per-task  the plan's largest thread count ({t}); the whole node with --exclusive\n"
      "# --cpu-bind=none  (on srun below) Slurm does not pin the task: moesweep places its own\n"
      "#                  threads (the plan's --cpu-mask, the engine's threadpools)\n"
      "# --requeue        a re-queued task continues its own shard: `sweep --shard` finds the\n"
      "#                  unfinished run of it under RUNS and resumes it\n"
      "# The first task to start submits the merge job, which waits for the whole array\n"
      "# (afterany: also after a failed shard, so the merge can list what is missing).\n"
      "#SBATCH --job-name=moesweep-{name}\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --nodes=1\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task={t}\n",
      fmt::arg("id", id), fmt::arg("name", name), fmt::arg("n", shards), fmt::arg("dir", dir),
      fmt::arg("t", threads), fmt::arg("last", shards - 1));
  if (!opts.shared) s += "#SBATCH --exclusive\n";
  s += "#SBATCH --requeue\n";
  s += fmt::format("#SBATCH --output={}/logs/shard-%a.out\n", dir);
  if (!opts.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", opts.partition);
  if (!opts.constraint.empty()) s += fmt::format("#SBATCH --constraint={}\n", opts.constraint);
  if (!opts.time.empty()) s += fmt::format("#SBATCH --time={}\n", opts.time);
  if (!opts.account.empty()) s += fmt::format("#SBATCH --account={}\n", opts.account);
  return s + script_commands(name, dir, opts);
}

}  // namespace moesweep
