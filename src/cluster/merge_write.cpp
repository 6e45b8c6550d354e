// Writing a merged run (cluster/merge_runs.hpp).
#include <fmt/format.h>

#include <ctime>
#include <set>

#include "cluster/merge_runs.hpp"
#include "report/run_tables.hpp"
#include "results/file_sinks.hpp"
#include "results/token_file.hpp"
#include "run/run_lifecycle.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/jsonl_file.hpp"

namespace moesweep {
namespace {

void create_empty_dir(const std::filesystem::path& out) {
  check_merge_out(out);
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

MergeFacts merge_facts(const MergeCheck& check, const MergeGroup& g,
                       const std::vector<ShardRun>& runs) {
  MergeFacts m;
  m.plan_id = check.plan_id;
  m.shard_count = check.shard_count;
  m.planned_points = static_cast<int64_t>(check.planned);
  m.complete = g.complete();
  m.missing = g.missing;
  m.duplicated = g.duplicated;
  m.unplanned = g.unplanned;
  m.missing_shards = g.missing_shards;
  for (size_t ri : g.runs) {
    const ShardRun& r = runs[ri];
    MergeSource s;
    s.dir = std::filesystem::absolute(r.dir).string();
    s.run_id = r.meta.run_id;
    s.shard = r.shard.index;
    s.status = run_status_name(r.meta.status);
    s.node = r.meta.node;
    s.bandwidth = r.meta.bandwidth;
    s.records = static_cast<int64_t>(r.records.size());
    m.sources.push_back(std::move(s));
  }
  return m;
}

// samples.jsonl and tokens.jsonl of the sources, only for the records kept (a
// duplicate's samples belong to the record dropped). Each line is checked (an
// object with its point's "key"); a torn last line is left out.
void copy_samples(const MergeGroup& g, const std::vector<ShardRun>& runs,
                  const std::filesystem::path& out) {
  std::map<size_t, std::set<std::string>> kept;  // run -> keys kept from it
  for (size_t i = 0; i < g.records.size(); ++i)
    kept[g.record_source[i]].insert(g.records[i].params.key_string());
  for (const char* name : {"samples.jsonl", kTokenFileName}) {
    DurableAppender samples(out / name);
    for (size_t ri : g.runs) {
      const std::filesystem::path file = runs[ri].dir / name;
      std::error_code ec;
      if (!std::filesystem::exists(file, ec)) continue;
      for (const JsonlLine& line : read_jsonl_file(file, "samples file").lines) {
        const JsonFields f(line.value, fmt::format("{}:{}", file.string(), line.number));
        if (kept[ri].count(f.text("key"))) samples.append_line(line.value.dump());
      }
    }
  }
}

std::string now_stamp() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

}  // namespace

void check_merge_out(const std::filesystem::path& out) {
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec)) {
    throw UserError(fmt::format("{} exists and is not a directory", out.string()),
                    "a new directory for the merged run", "choose another --out");
  }
}

std::string merged_run_id(const MergeCheck& check, const MergeGroup& group, bool fleet,
                          const std::function<bool(const std::string&)>& taken) {
  std::string base = fmt::format("{}-merged-{}", now_stamp(), check.plan_id);
  if (fleet) base += "-" + (group.machine.empty() ? "unknown-machine" : group.machine);
  for (int n = 1; n < 1000; ++n) {
    const std::string id = n == 1 ? base : fmt::format("{}-{}", base, n);
    if (!taken || !taken(id)) return id;
  }
  throw UserError(fmt::format("the store holds 999 merges named {}", base), "a free run id",
                  "wait a second and merge again, or use another --db");
}

RunMeta write_merged_run(const MergeCheck& check, const MergeGroup& group,
                         const std::vector<ShardRun>& runs, const std::filesystem::path& out,
                         const std::string& run_id, RunListener* also_to) {
  create_empty_dir(out);
  RunTablesWriter tables(out, out.filename().string());  // outlives the lifecycle that ends it
  RunLifecycle run(RunDirectory::adopt(out, run_id));
  RunMeta& meta = run.meta();
  meta = runs[group.runs.front()].meta;  // settings, spec, build, machine class, node of shard 0
  meta.shard.reset();
  meta.resumed_at.clear();
  meta.error.clear();
  meta.command_line.clear();
  meta.kind = RunKind::kMerged;
  meta.started_at.clear();  // begin() stamps the merge's own
  meta.hosts = group.hosts;
  meta.merge = merge_facts(check, group, runs);
  meta.outcome =
      OutcomeFacts{.ok_points = static_cast<int64_t>(group.records.size()) - group.failed,
                   .failed_points = group.failed,
                   .missing_points = static_cast<int64_t>(group.missing.size()),
                   .planned_points = static_cast<int64_t>(check.planned)};
  if (meta.name.empty()) meta.name = check.name;
  run.guarded([&] {
    for (auto& writer : point_file_writers(run.dir(), false)) run.listen(std::move(writer));
    if (also_to) run.listen(*also_to);
    run.listen(tables);
  });
  run.begin();
  run.guarded([&] {
    for (Record r : group.records) {
      r.run_id = run_id;
      run.listeners().point(r);
    }
    copy_samples(group, runs, out);
    (meta.sweep ? *meta.sweep : meta.sweep.emplace()).noise =
        tables.noise();  // as a sweep keeps it
    run.end(group.complete() && group.failed == 0 ? RunStatus::kComplete
                                                  : RunStatus::kPointsFailed);
  });
  return meta;
}

}  // namespace moesweep
