// `moesweep merge DIR... --out RUN`: the shard runs of one plan into one run
// (cluster/merge_runs.hpp), with the check that every planned point is there
// exactly once. Exit 0 complete; 3 when points are missing, duplicated or
// failed (the merged run is written anyway, with the list in meta.json);
// 2 for runs of different plans.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cluster/merge_runs.hpp"
#include "commands.hpp"
#include "results/sqlite_store.hpp"
#include "util/error.hpp"
#include "util/terminal_text.hpp"

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

// One merged run: what it holds and what it lacks.
void print_merged(const MergeCheck& check, const MergeGroup& g, const MergedRun& m) {
  print_note(fmt::format(
      "[merge] plan {} ({}), machine {} on {}: {} of {} planned points from {} run(s) of {} "
      "shard(s), {} failed -> {}",
      check.plan_id, check.name, m.machine, fmt::join(g.hosts, ","), g.records.size(),
      check.planned, g.runs.size(), check.shard_count, g.failed, m.dir.string()));
  if (!g.missing_shards.empty())
    fmt::print(stderr, "  no run of shard(s) {}\n", fmt::join(g.missing_shards, ","));
  print_keys("missing", g.missing);
  print_keys("duplicated (the first run's kept)", g.duplicated);
  print_keys("unplanned (dropped)", g.unplanned);
}

int run_merge(const MergeOptions& opts) {
  const std::vector<std::filesystem::path> inputs(opts.inputs.begin(), opts.inputs.end());
  const MergeListener listener{[](const std::string& note) { print_note("[merge] note: " + note); },
                               print_merged};
  const MergeResult merged = merge_shard_runs(
      inputs, opts.out, opts.no_db ? std::nullopt : std::optional<std::filesystem::path>(opts.db),
      listener);
  // The hardware table: one row per machine class (a single row without a fleet).
  fmt::print("{}", merged.hardware_table);
  if (!merged.fleet_warning.empty()) print_note("moesweep: warning: " + merged.fleet_warning);
  if (!merged.all_ok()) {
    print_note(fmt::format(
        "[merge] {}: the merged run lacks, repeats or failed points (exit 3); re-run the shards "
        "concerned (`moesweep sweep --shard` continues its own run and retries failed points), "
        "then merge again into a new --out",
        merged.any_incomplete() ? "incomplete" : "points failed"));
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
