// `moesweep merge` from its arguments to its merged runs (cluster/merge_runs.hpp).
#include <memory>

#include "cluster/merge_runs.hpp"
#include "report/fleet_files.hpp"
#include "report/fleet_table.hpp"
#include "results/sqlite_store.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

MergedRun write_group(const MergeCheck& check, const MergeGroup& g,
                      const std::vector<ShardRun>& runs, const std::filesystem::path& out,
                      bool fleet, SqliteSink* db) {
  MergedRun m;
  m.machine = g.machine.empty() ? "unknown-machine" : g.machine;
  check_path_component(m.machine, "machine class id", "the merged runs");  // stays inside out
  m.dir = fleet ? out / m.machine : out;
  const std::string run_id =
      merged_run_id(check, g, fleet, [&](const std::string& id) { return db && db->has_run(id); });
  m.meta = write_merged_run(check, g, runs, m.dir, run_id, db);
  m.ok = g.complete() && g.failed == 0 && g.missing_shards.empty();
  m.incomplete = !g.complete() || !g.missing_shards.empty();
  return m;
}

// fleet.json's "runs": one entry per machine class.
nlohmann::json fleet_index(const MergeResult& r) {
  nlohmann::json index = nlohmann::json::array();
  for (size_t i = 0; i < r.merged.size(); ++i) {
    const MergeGroup& g = r.check.groups[i];
    const MergedRun& m = r.merged[i];
    index.push_back({{"machine", m.machine},
                     {"hosts", g.hosts},
                     {"dir", m.dir.filename().string()},
                     {"points", g.records.size()},
                     {"complete", m.ok}});
  }
  return index;
}

}  // namespace

bool MergeResult::all_ok() const {
  for (const MergedRun& m : merged)
    if (!m.ok) return false;
  return true;
}

bool MergeResult::any_incomplete() const {
  for (const MergedRun& m : merged)
    if (m.incomplete) return true;
  return false;
}

MergeResult merge_shard_runs(const std::vector<std::filesystem::path>& inputs,
                             const std::filesystem::path& out,
                             const std::optional<std::filesystem::path>& database,
                             const MergeListener& listener) {
  check_merge_out(out);
  const std::vector<ShardRun> runs = load_shard_runs(inputs);
  if (listener.note)
    for (const ShardRun& r : runs)
      for (const std::string& note : r.notes) listener.note(note);
  MergeResult result;
  result.check = check_merge(runs);
  result.fleet = result.check.groups.size() > 1;
  std::unique_ptr<SqliteSink> db;
  if (database) db = std::make_unique<SqliteSink>(std::filesystem::absolute(*database));
  std::vector<FleetMember> members;
  for (const MergeGroup& g : result.check.groups) {
    result.merged.push_back(write_group(result.check, g, runs, out, result.fleet, db.get()));
    members.push_back({result.merged.back().meta, g.records});
    if (listener.merged) listener.merged(result.check, g, result.merged.back());
  }
  result.hardware_table = fleet_table(members, TableWidth::kCompact);  // for stdout
  if (result.fleet)
    result.fleet_warning =
        write_fleet_files(out, result.check.plan_id, fleet_index(result), members);
  return result;
}

}  // namespace moesweep
