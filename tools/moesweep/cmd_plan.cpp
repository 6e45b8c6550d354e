// `moesweep plan --shards N --out DIR`: the sweep's plan split into N shard
// files for a cluster (cluster/shard_plan.hpp), plus DIR/plan.json, the index
// that `moesweep slurm` reads. Takes every `moesweep sweep` flag.
#include <fmt/format.h>

#include <filesystem>

#include "cluster/shard_plan.hpp"
#include "commands.hpp"
#include "hw/build_info.hpp"
#include "sweep_options.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

struct PlanOptions {
  SweepOptions sweep;
  int shards = 0;
  std::string out;
  std::string runs = "results/runs";
};

void check_out_dir(const std::filesystem::path& out) {
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec)) {
    throw UserError(fmt::format("{} exists and is not a directory", out.string()),
                    "a new or empty directory for the shard files", "choose another --out");
  }
  if (std::filesystem::exists(out / "plan.json", ec)) {
    throw UserError(fmt::format("{} already holds a plan (plan.json)", out.string()),
                    "a new or empty directory for the shard files",
                    "choose another --out, or remove that directory first");
  }
  std::filesystem::create_directories(out / "logs", ec);  // sbatch --output needs it to exist
  if (ec || !std::filesystem::is_directory(out, ec)) {
    throw UserError(fmt::format("cannot create {}: {}", out.string(), ec.message()),
                    "a directory the shards can be written to (shared with the nodes)",
                    "choose another --out");
  }
}

nlohmann::json plan_index(const Plan& plan, const std::string& id, const std::vector<Shard>& shards,
                          const PlanCost& cost,
                          const std::map<std::string, nlohmann::json>& settings,
                          const std::string& origin) {
  nlohmann::json list = nlohmann::json::array();
  for (const Shard& s : shards)
    list.push_back({{"index", s.index},
                    {"file", shard_file_path("", s.index).string()},
                    {"points", s.points},
                    {"contexts", s.contexts.size()},
                    {"cost", s.cost}});
  return {{"moesweep_plan", 1},
          {"plan_id", id},
          {"name", plan.spec.name},
          {"origin", origin},
          {"settings", settings},
          {"points", plan.points.size()},
          {"max_threads", max_threads(plan)},
          {"shard_count", shards.size()},
          {"cost", {{"total", cost.total}, {"unit", cost.in_seconds ? "seconds" : "work"}}},
          {"summary", to_json(plan.summary())},
          {"shards", list}};
}

int run_plan(const PlanOptions& opts) {
  std::string origin;
  std::map<std::string, nlohmann::json> settings = opts.sweep.merged_settings(&origin);
  // The name goes into the settings: the node expands them without --profile.
  if (!settings.count("name") && !opts.sweep.profile.empty())
    settings["name"] = std::filesystem::path(opts.sweep.profile).stem().string();
  const SweepSpec spec = spec_from_settings(settings, origin);
  // A plan for the cluster's nodes, not this machine: oversubscription here
  // is a warning; the node refuses threads beyond its own CPUs.
  const Plan plan = make_plan(spec, cpu_info().logical_cpus, /*dry_run=*/true);
  const PlanCost cost = estimate_cost(plan, SpeedTable::from_runs(opts.runs));
  const std::vector<Shard> shards = split_plan(cost, opts.shards);
  const std::string id = plan_id(plan);
  const std::filesystem::path out = opts.out;
  check_out_dir(out);
  for (const Shard& s : shards)
    write_file_atomically(
        shard_file_path(out, s.index),
        shard_file_json(plan, id, s, opts.shards, settings, origin, cost).dump(2) + "\n");
  write_file_atomically(out / "plan.json",
                        plan_index(plan, id, shards, cost, settings, origin).dump(2) + "\n");

  const char* unit = cost.in_seconds ? "s" : "work units";
  print_wrapped(
      fmt::format("plan {} ({} from {}): {} points in {} context group(s), most threads {}", id,
                  spec.name, origin, plan.points.size(), cost.contexts.size(), max_threads(plan)));
  for (const Shard& s : shards)
    fmt::print("  shard {}: {} points, {} context group(s), cost {:.0f} {} ({:.0f}% of the plan)\n",
               s.index, s.points, s.contexts.size(), s.cost, unit,
               cost.total > 0 ? 100 * s.cost / cost.total : 0.0);
  if (!cost.in_seconds)
    fmt::print("  (no earlier run of every model under {}: costs from nominal speeds)\n",
               opts.runs);
  for (const std::string& w : plan.warnings) print_wrapped("warning: " + w);
  print_wrapped(
      fmt::format("wrote {}/plan.json and shard-0..{}.json; next: moesweep slurm {} > job.sh",
                  out.string(), shards.size() - 1, out.string()));
  return exit_code::kOk;
}

}  // namespace

void add_plan_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "split a sweep into N shard files for a cluster (takes every sweep flag)");
  opts->sweep.add_to(*cmd);
  cmd->add_option("--shards", opts->shards, "number of shards (Slurm array tasks)")
      ->required()
      ->check(in_range(1, kMaxShardCount));
  cmd->add_option("--out", opts->out, "directory for plan.json and shard-I.json")->required();
  cmd->add_option("--runs", opts->runs,
                  "earlier runs whose speeds weigh the shards (as --dry-run's estimate)")
      ->capture_default_str();
  cmd->callback([opts, &run] { run = [opts] { return run_plan(*opts); }; });
}

}  // namespace moesweep::cli
