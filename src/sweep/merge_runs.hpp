#pragma once
// `moesweep merge`: shard runs of one plan (sweep/shard_plan.hpp) into one
// run, checked against the plan: every planned point present exactly once.
// A fleet (the same plan run on several machine classes) stays apart: one
// merged run per machine class, each checked on its own.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "results/sink.hpp"
#include "sweep/shard_plan.hpp"

namespace moesweep {

struct ShardRun {
  std::filesystem::path dir;
  nlohmann::json meta;
  ShardFile shard;      // from meta.json's "shard"
  std::string machine;  // machine class id ("" when not recorded)
  std::string host;
  std::vector<Record> records;  // the last record of each point (a resume retries failures)
};

// Each argument is a run directory (it has meta.json) or a directory of run
// directories (a shard's --out-dir). Throws UserError for a run that is not a
// shard run, or when nothing is found.
std::vector<ShardRun> load_shard_runs(const std::vector<std::filesystem::path>& args);

struct MergeGroup {
  std::string machine;  // machine class id
  nlohmann::json machine_class;
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

// Writes `group` as a run in `out` (created; must not exist or be empty):
// meta.json, records.jsonl, records.csv, samples.jsonl, and every record to
// `extra` (e.g. the SQLite sink). Returns the meta.json written.
nlohmann::json write_merged_run(const MergeCheck& check, const MergeGroup& group,
                                const std::vector<ShardRun>& runs, const std::filesystem::path& out,
                                RunListener* extra);

}  // namespace moesweep
