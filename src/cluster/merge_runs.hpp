#pragma once
// `moesweep merge`: shard runs of one plan (cluster/shard_plan.hpp) into one
// run, checked against the plan: every planned point present exactly once.
// A fleet (the same plan run on several machine classes) stays apart: one
// merged run per machine class, each checked on its own.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/shard_plan.hpp"
#include "results/record.hpp"
#include "results/sink.hpp"

namespace moesweep {

struct ShardRun {
  std::filesystem::path dir;
  RunMeta meta;
  ShardFile shard;      // from meta.json's "shard"
  std::string machine;  // machine class id, from its facts ("" when not recorded)
  std::string host;
  std::vector<Record> records;     // the last record of each point (a resume retries failures)
  std::vector<std::string> notes;  // a torn last line left out, say
};

// Each argument is a run directory (it has meta.json) or a directory of run
// directories (a shard's --out-dir). Throws UserError for a run that is not a
// shard run, or when nothing is found.
std::vector<ShardRun> load_shard_runs(const std::vector<std::filesystem::path>& args);

struct MergeGroup {
  std::string machine;  // machine class id: a folder name by construction
  std::optional<MachineClass> machine_class;
  std::vector<std::string> hosts;
  std::vector<size_t> runs;             // indices into the runs given, shard order
  std::vector<Record> records;          // plan order, one per point found
  std::vector<size_t> record_source;    // the run (index into runs given) of each record
  std::vector<std::string> missing;     // planned point keys without a record
  std::vector<std::string> duplicated;  // keys recorded by more than one run (the first kept)
  std::vector<std::string> unplanned;   // keys no planned point has (dropped)
  std::vector<int> missing_shards;      // shard indices with no run
  int failed = 0;                       // records of failed points
  bool complete() const { return missing.empty() && duplicated.empty() && unplanned.empty(); }
};

struct MergeCheck {
  std::string plan_id, name;
  int shard_count = 0;
  size_t planned = 0;
  std::vector<MergeGroup> groups;  // one per machine class
};

// Refuses (UserError, exit 2) runs of different plans, or a plan these
// settings no longer expand to (another moesweep build).
MergeCheck check_merge(const std::vector<ShardRun>& runs);

// Refuses an --out that exists and is no directory, before anything is read.
void check_merge_out(const std::filesystem::path& out);

// The merged run's id: "<time>-merged-<plan id>" (and "-<machine class>" in
// a fleet), with "-2", "-3"... while `taken` says a store holds it already:
// two merges never share a run id, whatever their --out is called.
std::string merged_run_id(const MergeCheck& check, const MergeGroup& group, bool fleet,
                          const std::function<bool(const std::string&)>& taken);

// Writes `group` as run `run_id` in `out` (created; must not exist or be
// empty): meta.json, records.jsonl, records.csv, samples.jsonl (each read
// through its typed reader), and every record to `also_to` (e.g. the SQLite
// sink). Returns the meta.json written.
RunMeta write_merged_run(const MergeCheck& check, const MergeGroup& group,
                         const std::vector<ShardRun>& runs, const std::filesystem::path& out,
                         const std::string& run_id, RunListener* also_to);

// One merged run as written: `moesweep merge` prints it.
struct MergedRun {
  std::string machine;        // the group's machine class id ("unknown-machine" when none)
  std::filesystem::path dir;  // its run directory (a fleet: <out>/<machine>)
  RunMeta meta;               // its meta.json
  bool ok = false;            // every planned point once, none failed, every shard there
  bool incomplete = false;    // points missing, duplicated or unplanned, or shards missing
};

struct MergeResult {
  MergeCheck check;
  bool fleet = false;             // several machine classes: one run each in --out
  std::vector<MergedRun> merged;  // in the order of check.groups
  std::string hardware_table;     // one row per machine class (one without a fleet), for a terminal
  std::string fleet_warning;      // from a fleet's files: the engine builds differ ("" else)
  bool all_ok() const;
  bool any_incomplete() const;
};

// What a merge tells as it goes (the CLI prints it): a note of a run read (a
// torn last line left out), each run once written. Either may be empty.
struct MergeListener {
  std::function<void(const std::string& note)> note;
  std::function<void(const MergeCheck&, const MergeGroup&, const MergedRun&)> merged;
};

// `moesweep merge` from its arguments to its runs: reads and checks the shard
// runs (load_shard_runs, check_merge: UserError), writes one merged run per
// machine class under its own lifecycle with its tables (into `database`
// too, unless nullopt), and in a fleet the index, table and figure beside them.
MergeResult merge_shard_runs(const std::vector<std::filesystem::path>& inputs,
                             const std::filesystem::path& out,
                             const std::optional<std::filesystem::path>& database,
                             const MergeListener& listener = {});

}  // namespace moesweep
