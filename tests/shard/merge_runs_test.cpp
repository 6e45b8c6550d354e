// merge: shard runs of one plan into one run, every planned point exactly
// once; missing, duplicated and foreign runs named; a fleet kept apart.
// The shard runs are written here from the plan (no engine needed).
#include <gtest/gtest.h>

#include <fstream>

#include "cluster/merge_runs.hpp"
#include "report/run_tables.hpp"
#include "report/sweep_tables.hpp"
#include "results/record.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "support/test_support.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

using Settings = std::map<std::string, nlohmann::json>;

const Settings kSettings = {{"model", "kimi-k2.5"},
                            {"threads", "1,2"},
                            {"ubatch-size", "128,256,512"},
                            {"depths", "0,256"},
                            {"name", "merge-test"}};

struct Shards {
  Plan plan;
  std::string id;
  std::vector<Shard> shards;
};

Shards make_shards(const Settings& settings = kSettings, int n = 3) {
  Shards s{make_plan(spec_from_settings(settings, "test"), 64, true), "", {}};
  s.id = plan_id(s.plan);
  s.shards = split_plan(estimate_cost(s.plan, SpeedTable{}), n);
  return s;
}

// A machine class made of one fact (its vendor), and the folder name merge
// gives it (made from the facts, never taken from the file's "id").
nlohmann::json class_of(const std::string& machine) {
  return {{"vendor", machine}, {"id", machine}};
}
std::string class_id(const std::string& machine) {
  return machine_class_id(machine_class_from_json(class_of(machine), "test"));
}

std::string fmt_dir(const std::string& machine, int index) {
  return machine + "-shard-" + std::to_string(index);
}

// A shard run directory as `sweep --shard` leaves it; `skip` drops a point.
std::filesystem::path write_run(const std::filesystem::path& root, const Shards& s, int index,
                                const std::string& machine = "m1", int skip = -1,
                                const Settings& settings = kSettings) {
  const Shard& shard = s.shards[index];
  ShardFile f;
  f.plan_id = s.id;
  f.index = index;
  f.count = static_cast<int>(s.shards.size());
  f.contexts = shard.contexts;
  const auto dir = root / fmt_dir(machine, index);
  std::filesystem::create_directories(dir);
  const nlohmann::json meta = {{"run_id", dir.filename().string()},
                               {"name", "merge-test"},
                               {"status", "complete"},
                               {"settings", settings},
                               {"shard", to_json(shard_meta(f))},
                               {"machine_class", class_of(machine)},
                               {"node", {{"host", machine + "-host"}}}};
  std::ofstream(dir / "meta.json") << meta.dump(2);
  std::ofstream out(dir / "records.jsonl");
  std::ofstream samples(dir / "samples.jsonl");
  Plan part = s.plan;
  restrict_to_shard(part, f);
  for (const PlannedPoint& p : part.points) {
    if (p.index == skip) continue;
    Record r;
    r.run_id = dir.filename().string();
    r.point_index = p.index;
    r.params = p.params;
    out << record_to_json(r).dump() << "\n";
    samples << nlohmann::json({{"point", p.index}, {"key", p.params.key_string()}}).dump() << "\n";
  }
  return dir;
}

TEST(MergeRuns, CompleteShardsGiveEveryPointOnceInPlanOrder) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  for (int i = 0; i < 3; ++i) write_run(root / "runs", s, i);
  const auto runs = load_shard_runs({root / "runs"});
  const MergeCheck check = check_merge(runs);
  EXPECT_EQ(check.plan_id, s.id);
  EXPECT_EQ(check.planned, s.plan.points.size());
  ASSERT_EQ(check.groups.size(), 1u);
  const MergeGroup& g = check.groups[0];
  EXPECT_TRUE(g.complete());
  EXPECT_TRUE(g.missing_shards.empty());
  ASSERT_EQ(g.records.size(), s.plan.points.size());
  for (size_t i = 0; i < g.records.size(); ++i) EXPECT_EQ(g.records[i].point_index, (int)i);

  const RunMeta meta = write_merged_run(check, g, runs, root / "merged", "merged-1", nullptr);
  EXPECT_EQ(meta.status, RunStatus::kComplete);
  EXPECT_EQ(meta.kind, RunKind::kMerged);
  EXPECT_EQ(test::read_lines(root / "merged" / "records.jsonl").size(), s.plan.points.size());
  EXPECT_EQ(test::read_lines(root / "merged" / "samples.jsonl").size(), s.plan.points.size());
  EXPECT_NE(test::read_lines(root / "merged" / "records.jsonl")[0].find("\"run_id\":\"merged-1\""),
            std::string::npos);
  EXPECT_THROW(write_merged_run(check, g, runs, root / "merged", "merged-2", nullptr), UserError)
      << "a non-empty --out is refused";
}

TEST(MergeRuns, ListsMissingPointsAndShards) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  write_run(root, s, 0);
  const int dropped = s.shards[1].contexts.empty() ? -1 : [&] {
    Plan part = s.plan;
    ShardFile f{s.id, 1, 3, "", "", {}, s.shards[1].contexts, {}, 0};
    restrict_to_shard(part, f);
    return part.points.front().index;
  }();
  write_run(root, s, 1, "m1", dropped);
  const MergeCheck check = check_merge(load_shard_runs({root}));
  const MergeGroup& g = check.groups.at(0);
  EXPECT_FALSE(g.complete());
  EXPECT_EQ(g.missing_shards, std::vector<int>{2});
  EXPECT_EQ(g.missing.size(), static_cast<size_t>(s.shards[2].points + 1));
  EXPECT_NE(
      std::find(g.missing.begin(), g.missing.end(), s.plan.points[dropped].params.key_string()),
      g.missing.end());
}

TEST(MergeRuns, ListsDuplicatedPoints) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  for (int i = 0; i < 3; ++i) write_run(root, s, i);
  write_run(root / "again", s, 0);  // shard 0 measured twice on the same machine class
  const MergeCheck check = check_merge(load_shard_runs({root, root / "again"}));
  const MergeGroup& g = check.groups.at(0);
  EXPECT_FALSE(g.complete());
  EXPECT_EQ(g.duplicated.size(), static_cast<size_t>(s.shards[0].points));
  EXPECT_TRUE(g.missing.empty());
  EXPECT_EQ(g.records.size(), s.plan.points.size());
}

TEST(MergeRuns, RefusesRunsOfAnotherPlan) {
  const Shards s = make_shards();
  Settings other = kSettings;
  other["depths"] = "0,512";
  const Shards t = make_shards(other);
  ASSERT_NE(s.id, t.id);
  const auto root = test::scratch_dir();
  write_run(root, s, 0);
  write_run(root / "other", t, 1, "m1", -1, other);
  try {
    check_merge(load_shard_runs({root, root / "other"}));
    FAIL() << "runs of two plans merged";
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.problem()).find(t.id), std::string::npos);
  }
}

TEST(MergeRuns, RefusesARunThatIsNoShard) {
  const auto root = test::scratch_dir();
  std::filesystem::create_directories(root / "plain");
  std::ofstream(root / "plain" / "meta.json") << R"({"run_id": "plain", "settings": {}})";
  EXPECT_THROW(load_shard_runs({root / "plain"}), UserError);
  EXPECT_THROW(load_shard_runs({root / "nothing-here"}), UserError);
}

TEST(MergeRuns, KeepsAFleetApartByMachineClass) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  for (int i = 0; i < 3; ++i) write_run(root, s, i, "m1");
  for (int i = 0; i < 3; ++i) write_run(root, s, i, "m2");
  const MergeCheck check = check_merge(load_shard_runs({root}));
  ASSERT_EQ(check.groups.size(), 2u);
  for (const MergeGroup& g : check.groups) {
    EXPECT_TRUE(g.complete()) << g.machine;
    EXPECT_EQ(g.records.size(), s.plan.points.size());
    ASSERT_EQ(g.hosts.size(), 1u);
    EXPECT_TRUE(g.machine == class_id("m1") || g.machine == class_id("m2")) << g.machine;
    EXPECT_EQ(g.hosts[0], (g.machine == class_id("m1") ? "m1" : "m2") + std::string("-host"));
  }
}

// The merged run's tables are a listener of its lifecycle (written before
// meta.json says "complete"), and meta.json keeps the noise summary a sweep
// keeps, made from the merged points (shard 0's own is not carried over).
TEST(MergeRuns, TheMergedRunKeepsTablesAndNoiseAsASweepDoes) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  std::vector<std::filesystem::path> dirs;
  for (int i = 0; i < 3; ++i) dirs.push_back(write_run(root / "runs", s, i));
  nlohmann::json meta0 = read_json_file(dirs[0] / "meta.json", "test");
  meta0["noise"] = {{"stale", true}};
  std::ofstream(dirs[0] / "meta.json") << meta0.dump(2);
  int heard = 0;
  MergeListener listener;
  listener.merged = [&](const MergeCheck& check, const MergeGroup& g, const MergedRun& m) {
    ++heard;
    EXPECT_EQ(check.plan_id, s.id);
    EXPECT_EQ(g.records.size(), s.plan.points.size());
    EXPECT_TRUE(std::filesystem::exists(m.dir / "tables.md")) << "written inside the lifecycle";
  };
  const MergeResult r = merge_shard_runs({root / "runs"}, root / "merged", std::nullopt, listener);
  EXPECT_EQ(heard, 1);
  EXPECT_FALSE(r.fleet);
  EXPECT_TRUE(r.all_ok());
  EXPECT_FALSE(r.any_incomplete());
  ASSERT_EQ(r.merged.size(), 1u);
  EXPECT_EQ(r.merged[0].dir, root / "merged");
  EXPECT_FALSE(r.hardware_table.empty());
  const std::vector<Record> records = read_records_jsonl(root / "merged" / "records.jsonl");
  const RunMeta meta = read_run_meta(root / "merged");
  EXPECT_EQ(meta.status, RunStatus::kComplete);
  ASSERT_TRUE(meta.sweep);
  EXPECT_EQ(meta.sweep->noise, noise_summary(records));
  EXPECT_FALSE(meta.sweep->noise.contains("stale"));
  std::ifstream in(root / "merged" / "tables.md");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), {}),
            "# merged\n\n" + render_run_tables(records).markdown);
}

TEST(MergeCli, ExitCodesSayCompleteIncompleteOrRefused) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  for (int i = 0; i < 2; ++i) write_run(root / "runs", s, i);
  auto r = test::run_cli("merge " + (root / "runs").string() + " --no-db --out " +
                         (root / "partial").string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("missing"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(root / "partial" / "meta.json"));
  write_run(root / "runs", s, 2);
  r = test::run_cli("merge " + (root / "runs").string() + " --no-db --out " +
                    (root / "full").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(root / "full" / "tables.md"));
}

TEST(MergeCli, AFleetBecomesOneRunPerMachineClassAndAHardwareTable) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  for (int i = 0; i < 3; ++i) write_run(root / "runs", s, i, "m1");
  for (int i = 0; i < 3; ++i) write_run(root / "runs", s, i, "m2");
  const auto r = test::run_cli("merge " + (root / "runs").string() + " --no-db --out " +
                               (root / "F").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* m : {"m1", "m2"})
    EXPECT_EQ(test::read_lines(root / "F" / class_id(m) / "records.jsonl").size(),
              s.plan.points.size());
  const auto table = test::read_lines(root / "F" / "fleet.md");
  ASSERT_EQ(table.size(), 6u);  // title, header, rule, two machines, the cost columns' note
  EXPECT_NE(table[3].find("m1-host"), std::string::npos);
  EXPECT_NE(table[4].find("m2-host"), std::string::npos);
  EXPECT_NE(r.out.find("bandwidth GB/s"), std::string::npos);
  std::filesystem::remove(root / "F" / "fleet.md");
  const auto report = test::run_cli("report " + (root / "F").string());
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("m2-host"), std::string::npos) << report.out;
  EXPECT_EQ(test::read_lines(root / "F" / "fleet.md").size(), 6u);
}

// Two plans merged into "merged" folders of their own plan directories with
// one store (the sbatch script's $PLAN/merged and a shared --db): two runs,
// each with its own points (issue 20, defect 3: both were run id "merged").
TEST(MergeCli, TwoMergesIntoOneStoreNeverShareARunId) {
  const Shards a = make_shards();
  Settings other = kSettings;
  other["depths"] = "0,512";
  const Shards b = make_shards(other);
  const auto root = test::scratch_dir();
  for (int i = 0; i < 3; ++i) write_run(root / "A" / "runs", a, i);
  for (int i = 0; i < 3; ++i) write_run(root / "B" / "runs", b, i, "m1", -1, other);
  const std::string db = (root / "shared.sqlite").string();
  for (const char* plan : {"A", "B"}) {
    const auto r = test::run_cli("merge " + (root / plan / "runs").string() + " --db " + db +
                                 " --out " + (root / plan / "merged").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  SqliteStore store(db, SqliteStore::Mode::kReadOnly);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].run_id, runs[1].run_id);
  for (const RunInfo& run : runs) {
    const bool is_a = run.run_id.find(a.id) != std::string::npos;
    EXPECT_TRUE(is_a || run.run_id.find(b.id) != std::string::npos) << run.run_id;
    EXPECT_EQ(static_cast<size_t>(run.n_points), (is_a ? a : b).plan.points.size());
    EXPECT_EQ(read_run_meta(run.run_dir).run_id, run.run_id);
  }
}

// A shard run's machine_class "id" is no folder name: the fleet's folders are
// made from the class facts, inside --out (issue 20, defect 3).
TEST(MergeCli, AHandEditedMachineClassIdCannotLeadOutOfOut) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  for (int i = 0; i < 3; ++i) write_run(root / "runs", s, i, "m1");
  for (int i = 0; i < 3; ++i) {
    const auto dir = write_run(root / "runs", s, i, "m2");
    nlohmann::json meta = nlohmann::json::parse(std::ifstream(dir / "meta.json"));
    meta["machine_class"]["id"] = "../../escape-fleet";
    std::ofstream(dir / "meta.json") << meta.dump(2);
  }
  const auto r = test::run_cli("merge " + (root / "runs").string() + " --no-db --out " +
                               (root / "out" / "F").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(root / "escape-fleet"));
  EXPECT_FALSE(std::filesystem::exists(root / "out" / "escape-fleet"));
  for (const char* m : {"m1", "m2"})
    EXPECT_TRUE(std::filesystem::exists(root / "out" / "F" / class_id(m) / "meta.json")) << m;
}

// A shard killed mid-write: its torn last lines are left out and named; the
// merge stays whole (the point is missing, not glued to the next).
TEST(MergeCli, TornLastLinesOfAShardRunAreNamedAndLeftOut) {
  const Shards s = make_shards();
  const auto root = test::scratch_dir();
  std::filesystem::path last;
  for (int i = 0; i < 3; ++i) last = write_run(root / "runs", s, i);
  std::ofstream(last / "records.jsonl", std::ios::app) << "{\"n_kv_max\":68,\"n_bat";
  std::ofstream(last / "samples.jsonl", std::ios::app) << "{\"point\": 3, \"ke";
  const auto r = test::run_cli("merge " + (root / "runs").string() + " --no-db --out " +
                               (root / "M").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("records.jsonl:" + std::to_string(s.shards[2].points + 1) +
                       " ends in a torn line"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(test::read_lines(root / "M" / "records.jsonl").size(), s.plan.points.size());
}

}  // namespace
}  // namespace moesweep
