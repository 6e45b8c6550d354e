#include "cluster/slurm_script.hpp"

#include <fmt/format.h>

#include "util/error.hpp"

namespace moesweep {

std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-./:=@+,") == std::string::npos;
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string sbatch_quote(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string slurm_pattern_literal(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

namespace {

// Every value written into the script: a newline would end the comment or
// the #SBATCH line it is in and start a shell command.
void refuse_control_characters(const std::string& what, const std::string& value) {
  for (const char c : value) {
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) continue;
    throw UserError(
        fmt::format("{} holds a control character (byte 0x{:02x}), which would break the sbatch "
                    "script's lines",
                    what, static_cast<unsigned char>(c)),
        "printable text in every path and value written into the script",
        fmt::format("rename or choose another {}", what));
  }
}

void check_script_values(const std::filesystem::path& plan_dir, const PlanIndex& index,
                         const SlurmScriptOptions& opts) {
  refuse_control_characters("the plan directory", plan_dir.string());
  refuse_control_characters("plan.json's plan_id", index.plan_id);
  refuse_control_characters("--partition", opts.partition);
  refuse_control_characters("--constraint", opts.constraint);
  refuse_control_characters("--time", opts.time);
  refuse_control_characters("--account", opts.account);
  refuse_control_characters("--moesweep", opts.moesweep);
  refuse_control_characters("--db", opts.db);
  // Slurm processes no %a in an --output name that holds a backslash: every
  // shard's log would be one file.
  if (plan_dir.string().find('\\') != std::string::npos)
    throw UserError(fmt::format("the plan directory '{}' holds a backslash", plan_dir.string()),
                    "a plan directory without '\\' (Slurm then ignores %a in --output)",
                    "write the plan to another --out");
}

// The job name: letters, digits, '-' and '_' of the plan's name.
std::string job_name(const std::string& name) {
  std::string out = name.substr(0, 64);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return out.empty() ? "adhoc" : out;
}

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
      "LOGS={logs}  # $PLAN/logs with '%' doubled: sbatch --output expands '%'\n"
      "RUNS=\"$PLAN/runs\"      # one run directory per shard (and machine class)\n"
      "MERGED=\"$PLAN/merged\"  # the merged run (a fleet: one per machine class in it)\n"
      "DB={db}\n"
      "\n"
      "if mkdir \"$PLAN/.merge-submitted\" 2>/dev/null; then\n"
      "  sbatch --dependency=afterany:\"$SLURM_ARRAY_JOB_ID\" --job-name={merge_name} \\\n"
      "    --ntasks=1 --cpus-per-task=1{merge_flags} --output=\"$LOGS/merge.out\" \\\n"
      "    --wrap=\"$(printf '%q ' \"$MOESWEEP\" merge \"$RUNS\" --out \"$MERGED\" --db "
      "\"$DB\")\"\n"
      "fi\n"
      "\n"
      "srun --ntasks=1 --cpu-bind=none \\\n"
      "  \"$MOESWEEP\" sweep --shard \"$PLAN\" --out-dir \"$RUNS\" --no-db --quiet\n",
      fmt::arg("exe", shell_quote(opts.moesweep)), fmt::arg("plan", shell_quote(dir)),
      fmt::arg("logs", shell_quote(slurm_pattern_literal(dir + "/logs"))),
      fmt::arg("db",
               opts.db.empty() ? std::string("\"$PLAN/moesweep.sqlite\"") : shell_quote(opts.db)),
      fmt::arg("merge_name", shell_quote("moesweep-" + name + "-merge")),
      fmt::arg("merge_flags", merge_flags));
}

std::string sbatch_line(const std::string& option, const std::string& value) {
  return fmt::format("#SBATCH --{}={}\n", option, sbatch_quote(value));
}

}  // namespace

std::string slurm_script(const PlanIndex& index, const std::filesystem::path& plan_dir,
                         const SlurmScriptOptions& opts) {
  check_script_values(plan_dir, index, opts);
  const std::string name = job_name(index.name);
  const int threads = std::max(1, index.max_threads);
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
      "# Values are quoted for sbatch; '%' in the --output path is doubled (sbatch expands it).\n",
      fmt::arg("id", index.plan_id), fmt::arg("name", name), fmt::arg("n", index.shard_count),
      fmt::arg("dir", dir), fmt::arg("t", threads));
  s += sbatch_line("job-name", "moesweep-" + name);
  s += sbatch_line("array", fmt::format("0-{}", index.shard_count - 1));
  s += sbatch_line("nodes", "1");
  s += sbatch_line("ntasks", "1");
  s += sbatch_line("cpus-per-task", std::to_string(threads));
  if (!opts.shared) s += "#SBATCH --exclusive\n";
  s += "#SBATCH --requeue\n";
  s += sbatch_line("output", slurm_pattern_literal(dir + "/logs") + "/shard-%a.out");
  if (!opts.partition.empty()) s += sbatch_line("partition", opts.partition);
  if (!opts.constraint.empty()) s += sbatch_line("constraint", opts.constraint);
  if (!opts.time.empty()) s += sbatch_line("time", opts.time);
  if (!opts.account.empty()) s += sbatch_line("account", opts.account);
  return s + script_commands(name, dir, opts);
}

}  // namespace moesweep
