// `moesweep merge DIR... --out RUN`: the shard runs of one plan into one run
// (sweep/merge_runs.hpp), with the check that every planned point is there
// exactly once. Exit 0 complete; 3 when points are missing, duplicated or
// failed (the merged run is written anyway, with the list in meta.json);
// 2 for runs of different plans.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>

#include "commands.hpp"
#include "report/fleet_files.hpp"
#include "report/fleet_table.hpp"
#include "report/run_tables.hpp"
#include "report/sweep_tables.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "sweep/merge_runs.hpp"
#include "sweep/run_session.hpp"
#include "sweep/run_storage.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  std::string db = SqliteStore::default_path().string();
  bool no_db = false;
};

constexpr size_t kListed = 20;  // missing/duplicated keys printed (meta.json has them all)

void print_keys(const char* what, const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  fmt::print(stderr, "  {} {} point(s):\n", keys.size(), what);
  for (size_t i = 0; i < keys.size() && i < kListed; ++i) fmt::print(stderr, "    {}\n", keys[i]);
  if (keys.size() > kListed)
    fmt::print(stderr, "    ... {} more in meta.json \"merge\"\n", keys.size() - kListed);
}

int run_merge(const MergeOptions& opts) {
  check_merge_out(opts.out);
  std::vector<std::filesystem::path> inputs(opts.inputs.begin(), opts.inputs.end());
  const std::vector<ShardRun> runs = load_shard_runs(inputs);
  for (const ShardRun& r : runs)
    for (const std::string& note : r.notes) fmt::print(stderr, "[merge] note: {}\n", note);
  const MergeCheck check = check_merge(runs);
  const bool fleet = check.groups.size() > 1;
  std::unique_ptr<SqliteSink> db;
  if (!opts.no_db) db = std::make_unique<SqliteSink>(std::filesystem::absolute(opts.db));
  bool all_complete = true, any_incomplete = false;
  nlohmann::json fleet_index = nlohmann::json::array();
  std::vector<FleetMember> members;
  for (const MergeGroup& g : check.groups) {
    const std::string sub = g.machine.empty() ? "unknown-machine" : g.machine;
    check_path_component(sub, "machine class id", "the merged runs");  // stays inside --out
    const std::filesystem::path out =
        fleet ? std::filesystem::path(opts.out) / sub : std::filesystem::path(opts.out);
    const std::string run_id = merged_run_id(
        check, g, fleet, [&](const std::string& id) { return db && db->has_run(id); });
    members.push_back({write_merged_run(check, g, runs, out, run_id, db.get()), g.records});
    write_run_tables(out, out.filename().string(), render_run_tables(g.records));
    const bool ok = g.complete() && g.failed == 0 && g.missing_shards.empty();
    all_complete = all_complete && ok;
    any_incomplete = any_incomplete || !g.complete() || !g.missing_shards.empty();
    fmt::print(stderr,
               "[merge] plan {} ({}), machine {} on {}: {} of {} planned points from {} run(s) "
               "of {} shard(s), {} failed -> {}\n",
               check.plan_id, check.name, sub, fmt::join(g.hosts, ","), g.records.size(),
               check.planned, g.runs.size(), check.shard_count, g.failed, out.string());
    if (!g.missing_shards.empty())
      fmt::print(stderr, "  no run of shard(s) {}\n", fmt::join(g.missing_shards, ","));
    print_keys("missing", g.missing);
    print_keys("duplicated (the first run's kept)", g.duplicated);
    print_keys("unplanned (dropped)", g.unplanned);
    fleet_index.push_back({{"machine", sub},
                           {"hosts", g.hosts},
                           {"dir", out.filename().string()},
                           {"points", g.records.size()},
                           {"complete", ok}});
  }
  // The hardware table: one row per machine class (a single row without a fleet).
  const std::string table = fleet_table(members);
  fmt::print("{}", table);
  if (fleet) {
    const std::string warning = write_fleet_files(opts.out, check.plan_id, fleet_index, members);
    if (!warning.empty()) fmt::print(stderr, "moesweep: warning: {}\n", warning);
  }
  if (!all_complete) {
    fmt::print(stderr,
               "[merge] {}: the merged run lacks, repeats or failed points (exit 3); re-run the "
               "shards concerned (`moesweep sweep --shard` continues its own run and retries "
               "failed points), then merge again into a new --out\n",
               any_incomplete ? "incomplete" : "points failed");
    return exit_code::kPointsFailed;
  }
  return exit_code::kOk;
}

}  // namespace

void add_merge_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "merge the shard runs of one plan into one run, checking every point is there once");
  cmd->add_option("runs", opts->inputs, "shard run directories, or directories holding them")
      ->required();
  cmd->add_option("--out", opts->out,
                  "the merged run's directory (a fleet: one run per machine class in it)")
      ->required();
  cmd->add_option("--db", opts->db, "SQLite results store the merged run is added to")
      ->capture_default_str();
  cmd->add_flag("--no-db", opts->no_db, "do not write the SQLite store");
  cmd->callback([opts, &run] { run = [opts] { return run_merge(*opts); }; });
}

}  // namespace moesweep::cli
