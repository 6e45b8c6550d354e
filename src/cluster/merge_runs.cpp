#include "cluster/merge_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "results/run_source.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

// Plenty: the plan is only re-expanded (oversubscription is a dry run's warning).
constexpr int kAnyCpus = 1 << 16;

ShardRun load_one(const std::filesystem::path& dir) {
  ShardRun run;
  run.dir = dir;
  run.meta = read_run_meta(dir);
  if (!run.meta.shard) {
    throw UserError(
        fmt::format("{} is not a shard run (its meta.json has no \"shard\")", dir.string()),
        "runs made by `moesweep sweep --shard`",
        "pass only the shard runs (e.g. the plan's runs/ directory)");
  }
  run.shard = shard_from_meta(*run.meta.shard);
  // The class id is made from its facts (a folder name by construction), never
  // taken from the file: a hand-edited "id" cannot lead outside --out.
  run.machine = run.meta.machine_class ? machine_class_id(*run.meta.machine_class) : "";
  run.host = run.meta.node ? run.meta.node->host : "";
  std::map<std::string, Record> last;  // a resumed run appends a retried point again
  std::vector<std::string> order;
  const auto file = dir / "records.jsonl";
  RecordsFile records;
  if (std::filesystem::exists(file)) records = read_records_file(file);
  if (records.torn) run.notes.push_back(torn_line_note(file, *records.torn));
  for (Record& r : records.records) {
    const std::string key = r.params.key_string();
    if (!last.count(key)) order.push_back(key);
    if (!last.count(key) || r.ok || !last[key].ok) last[key] = std::move(r);
  }
  for (const std::string& k : order) run.records.push_back(std::move(last[k]));
  return run;
}

UserError plan_mismatch(const ShardRun& a, const ShardRun& b) {
  return UserError(
      fmt::format("{} is shard {} of plan {}, but {} is shard {} of plan {}", a.dir.string(),
                  a.shard.index, a.shard.plan_id, b.dir.string(), b.shard.index, b.shard.plan_id),
      "shard runs of one plan (one `moesweep plan --out DIR`)",
      "merge each plan's runs separately");
}

std::vector<std::string> planned_keys(const ShardRun& first, const std::string& plan_id) {
  const std::map<std::string, nlohmann::json>& settings = first.meta.settings;
  const Plan plan = make_plan(spec_from_settings(settings, "meta.json settings"), kAnyCpus, true);
  if (moesweep::plan_id(plan) != plan_id) {
    throw UserError(fmt::format("the settings of plan {} expand to plan {} with this moesweep",
                                plan_id, moesweep::plan_id(plan)),
                    "the moesweep build that wrote the shards", "merge with that build");
  }
  std::vector<std::string> keys;
  for (const PlannedPoint& p : plan.points) keys.push_back(p.params.key_string());
  return keys;
}

void match_group(MergeGroup& g, const std::vector<ShardRun>& runs,
                 const std::vector<std::string>& keys, int shard_count) {
  std::map<std::string, size_t> index;  // key -> plan position
  for (size_t i = 0; i < keys.size(); ++i) index[keys[i]] = i;
  std::vector<std::pair<size_t, size_t>> found(keys.size(), {SIZE_MAX, 0});  // run, record
  std::set<int> shards;
  std::set<std::string> hosts;
  for (size_t ri : g.runs) {
    shards.insert(runs[ri].shard.index);
    if (!runs[ri].host.empty()) hosts.insert(runs[ri].host);
    for (size_t k = 0; k < runs[ri].records.size(); ++k) {
      const std::string key = runs[ri].records[k].params.key_string();
      auto it = index.find(key);
      if (it == index.end())
        g.unplanned.push_back(key);
      else if (found[it->second].first != SIZE_MAX)
        g.duplicated.push_back(key);
      else
        found[it->second] = {ri, k};
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (found[i].first == SIZE_MAX) {
      g.missing.push_back(keys[i]);
      continue;
    }
    const Record& r = runs[found[i].first].records[found[i].second];
    g.failed += !r.ok;
    g.records.push_back(r);
    g.record_source.push_back(found[i].first);
  }
  for (int s = 0; s < shard_count; ++s)
    if (!shards.count(s)) g.missing_shards.push_back(s);
  g.hosts.assign(hosts.begin(), hosts.end());
}

void add_runs_in(const std::filesystem::path& arg, std::vector<std::filesystem::path>& dirs) {
  std::error_code ec;
  if (std::filesystem::exists(arg / "meta.json", ec)) {
    dirs.push_back(arg);
    return;
  }
  std::vector<std::filesystem::path> found;
  if (std::filesystem::is_directory(arg, ec))
    for (const auto& e : std::filesystem::directory_iterator(arg, ec))
      if (std::filesystem::exists(e.path() / "meta.json", ec)) found.push_back(e.path());
  if (found.empty()) {
    throw UserError(fmt::format("{} is neither a run directory nor holds any", arg.string()),
                    "shard run directories, or the --out-dir they were made in",
                    "pass the shard runs (the plan's runs/ directory in the Slurm script)");
  }
  std::sort(found.begin(), found.end());
  dirs.insert(dirs.end(), found.begin(), found.end());
}

}  // namespace

std::vector<ShardRun> load_shard_runs(const std::vector<std::filesystem::path>& args) {
  std::vector<std::filesystem::path> dirs;
  for (const auto& a : args) add_runs_in(a, dirs);
  std::vector<ShardRun> runs;
  for (const auto& d : dirs) runs.push_back(load_one(d));
  std::stable_sort(runs.begin(), runs.end(), [](const ShardRun& a, const ShardRun& b) {
    return a.shard.index < b.shard.index;
  });
  return runs;
}

MergeCheck check_merge(const std::vector<ShardRun>& runs) {
  if (runs.empty())
    throw UserError("no shard runs to merge", "one or more shard runs", "pass their directories");
  MergeCheck check;
  check.plan_id = runs[0].shard.plan_id;
  check.shard_count = runs[0].shard.count;
  check.name = runs[0].shard.name;
  for (const ShardRun& r : runs)
    if (r.shard.plan_id != check.plan_id || r.shard.count != check.shard_count)
      throw plan_mismatch(runs[0], r);
  const std::vector<std::string> keys = planned_keys(runs[0], check.plan_id);
  check.planned = keys.size();
  std::map<std::string, size_t> group_of;  // machine class -> group
  for (size_t i = 0; i < runs.size(); ++i) {
    auto [it, fresh] = group_of.emplace(runs[i].machine, check.groups.size());
    if (fresh) {
      check.groups.emplace_back();
      check.groups.back().machine = runs[i].machine;
      check.groups.back().machine_class = runs[i].meta.machine_class;
    }
    check.groups[it->second].runs.push_back(i);
  }
  for (MergeGroup& g : check.groups) match_group(g, runs, keys, check.shard_count);
  return check;
}

}  // namespace moesweep
