// `moesweep slurm DIR`: an sbatch array script for the shards `moesweep plan`
// wrote to DIR, on stdout. Plain text to read and edit before `sbatch`.
#include <fmt/format.h>

#include <filesystem>

#include "cluster/slurm_script.hpp"
#include "commands.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

int run_slurm(SlurmScriptOptions opts, const std::string& dir) {
  const std::filesystem::path plan_dir = std::filesystem::absolute(dir).lexically_normal();
  const PlanIndex index = read_plan_index(plan_dir / "plan.json");
  if (opts.moesweep.empty()) {
    std::error_code ec;
    opts.moesweep = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) opts.moesweep = "moesweep";
  }
  fmt::print("{}", slurm_script(index, plan_dir, opts));
  return exit_code::kOk;
}

}  // namespace

void add_slurm_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<SlurmScriptOptions>();
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "slurm", "print an sbatch array script for the shards of `moesweep plan --out DIR`");
  cmd->add_option("dir", *dir, "the plan directory (plan.json, shard-I.json)")->required();
  cmd->add_option("--partition", opts->partition, "#SBATCH --partition");
  cmd->add_option("--constraint", opts->constraint, "#SBATCH --constraint (node features)");
  cmd->add_option("--time", opts->time, "#SBATCH --time per shard, e.g. 12:00:00");
  cmd->add_option("--account", opts->account, "#SBATCH --account");
  cmd->add_flag("--shared", opts->shared,
                "do not ask for --exclusive nodes (other jobs then disturb the measurements)");
  cmd->add_option("--moesweep", opts->moesweep,
                  "the moesweep the nodes run (default: this one's absolute path)");
  cmd->add_option("--db", opts->db,
                  "SQLite store the merge job writes (default: DIR/moesweep.sqlite)");
  cmd->callback([opts, dir, &run] { run = [opts, dir] { return run_slurm(*opts, *dir); }; });
}

}  // namespace moesweep::cli
