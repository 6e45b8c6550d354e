// Writing a merged run (sweep/merge_runs.hpp).
#include <fmt/format.h>

#include <ctime>
#include <fstream>
#include <set>

#include "results/file_sinks.hpp"
#include "sweep/merge_runs.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

void create_empty_dir(const std::filesystem::path& out) {
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !std::filesystem::is_empty(out, ec)) {
    throw UserError(fmt::format("{} exists and is not empty", out.string()),
                    "a new directory for the merged run", "choose another --out, or remove it");
  }
  std::filesystem::create_directories(out, ec);
  if (ec) {
    throw UserError(fmt::format("cannot create {}: {}", out.string(), ec.message()),
                    "a directory this user can write", "choose another --out");
  }
}

std::string now_text() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return buf;
}

nlohmann::json sources_json(const MergeGroup& g, const std::vector<ShardRun>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t ri : g.runs) {
    const ShardRun& r = runs[ri];
    out.push_back({{"dir", std::filesystem::absolute(r.dir).string()},
                   {"run_id", r.meta.value("run_id", "")},
                   {"shard", r.shard.index},
                   {"status", r.meta.value("status", "")},
                   {"node", r.meta.value("node", nlohmann::json())},
                   {"bandwidth", r.meta.value("bandwidth", nlohmann::json())},
                   {"records", r.records.size()}});
  }
  return out;
}

// samples.jsonl of the sources, only for the records kept (a duplicate's
// samples belong to the record dropped).
void copy_samples(const MergeGroup& g, const std::vector<ShardRun>& runs,
                  const std::filesystem::path& out) {
  std::map<size_t, std::set<std::string>> kept;  // run -> keys kept from it
  for (size_t i = 0; i < g.records.size(); ++i)
    kept[g.record_source[i]].insert(g.records[i].params.key_string());
  DurableAppender samples(out / "samples.jsonl");
  for (size_t ri : g.runs) {
    std::ifstream in(runs[ri].dir / "samples.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      const nlohmann::json j = parse_json_or_discarded(line);
      if (j.is_object() && kept[ri].count(j.value("key", ""))) samples.append_line(line);
    }
  }
}

}  // namespace

nlohmann::json write_merged_run(const MergeCheck& check, const MergeGroup& group,
                                const std::vector<ShardRun>& runs, const std::filesystem::path& out,
                                RunListener* extra) {
  create_empty_dir(out);
  const ShardRun& first = runs[group.runs.front()];
  nlohmann::json meta = first.meta;  // settings, spec, build, machine class, node of shard 0
  for (const char* k : {"shard", "resumed_at", "error", "outcome", "noise", "command_line"})
    meta.erase(k);
  const std::string run_id = std::filesystem::absolute(out).lexically_normal().filename().string();
  const bool clean = group.complete() && group.failed == 0;
  meta["run_id"] = run_id;
  meta["started_at"] = now_text();
  meta["status"] = run_status_name(clean ? RunStatus::kComplete : RunStatus::kPointsFailed);
  meta["hosts"] = group.hosts;
  meta["merge"] = {{"plan_id", check.plan_id},
                   {"shard_count", check.shard_count},
                   {"planned_points", check.planned},
                   {"complete", group.complete()},
                   {"missing", group.missing},
                   {"duplicated", group.duplicated},
                   {"unplanned", group.unplanned},
                   {"missing_shards", group.missing_shards},
                   {"sources", sources_json(group, runs)}};
  meta["outcome"] = {{"ok_points", static_cast<int>(group.records.size()) - group.failed},
                     {"failed_points", group.failed},
                     {"missing_points", group.missing.size()},
                     {"planned_points", check.planned}};
  write_file_atomically(out / "meta.json", meta.dump(2) + "\n");

  const RunMeta run_meta{run_id, meta.value("name", check.name), out.string(), meta};
  ListenerSet sinks;
  sinks.push(std::make_unique<JsonlSink>(out / "records.jsonl"));
  sinks.push(std::make_unique<CsvSink>(out / "records.csv"));
  sinks.begin(run_meta);
  if (extra) extra->begin(run_meta);
  for (Record r : group.records) {
    r.run_id = run_id;
    sinks.point(r);
    if (extra) extra->point(r);
  }
  const RunStatus status = clean ? RunStatus::kComplete : RunStatus::kPointsFailed;
  sinks.end(run_meta, status);
  if (extra) extra->end(run_meta, status);
  copy_samples(group, runs, out);
  meta["finished_at"] = now_text();
  write_file_atomically(out / "meta.json", meta.dump(2) + "\n");
  return meta;
}

}  // namespace moesweep
