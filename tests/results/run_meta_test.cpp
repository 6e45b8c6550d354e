// meta.json, typed (issue 21 item 2, issue 20): run directories of rounds 1
// and 2 (tests/data/runs, kept as those rounds wrote them) read through the
// migrations; unknown keys survive a rewrite; every mistyped or out-of-range
// field is a UserError naming the file and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "results/run_meta.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

const fs::path kRuns = fs::path(MOESWEEP_TEST_DATA) / "runs";

nlohmann::json round1_json() {
  return read_json_file(kRuns / "round1-sweep" / "meta.json", "test data");
}

// A run directory holding `meta` as its meta.json.
fs::path run_with(const nlohmann::json& meta, const std::string& name = "run") {
  const fs::path dir = test::scratch_dir() / name;
  fs::create_directories(dir);
  std::ofstream(dir / "meta.json") << meta.dump(2);
  return dir;
}

TEST(RunMetaMigration, ARound1SweepReadsAsToday) {
  const RunMeta m = read_run_meta(kRuns / "round1-sweep");
  EXPECT_EQ(m.schema_version, kRunMetaSchema);
  EXPECT_EQ(m.kind, RunKind::kSweep);
  EXPECT_EQ(m.run_id, "20261129-204616-ci");
  EXPECT_EQ(m.status, RunStatus::kComplete);
  ASSERT_TRUE(m.build);
  EXPECT_EQ(m.build->engine.commit, "80fb11ac73e66d89eae2c6a91d8a77428fa733ed");
  EXPECT_EQ(m.build->engine_target, "GGML_NATIVE");  // every build was native then
  EXPECT_EQ(m.build->cpu.logical_cpus, 2);
  EXPECT_FALSE(m.has_database);  // before `database` was recorded: resume takes --db as given
  ASSERT_EQ(m.models.size(), 1u);
  EXPECT_EQ(m.models[0].sha256, "15cc8b00d0ad019a34a940b1c45034d38b7a687d715da4e966adcc91e62586a8");
  EXPECT_EQ(m.models[0].untyped["n_layer"], 2);  // the untyped facts stay
  EXPECT_EQ(m.planned_points(), 6);
  EXPECT_EQ(m.settings.at("name"), "ci");
  // No machine_class in round 1: the class comes from the build (L3 not recorded).
  EXPECT_FALSE(m.machine_class);
  const MachineClass c = machine_class_of(m);
  EXPECT_TRUE(c.known);
  EXPECT_EQ(c.logical_cpus, 2);
  EXPECT_FALSE(c.l3_bytes);
}

TEST(RunMetaMigration, ARound1FailureWasInterruptedWithAnErrorAndIsFailedNow) {
  const RunMeta m = read_run_meta(kRuns / "round1-failed");
  EXPECT_EQ(m.status, RunStatus::kFailed);
  EXPECT_NE(m.error.find("No space left on device"), std::string::npos);
  EXPECT_TRUE(m.has_database);
  EXPECT_FALSE(m.database);  // null: --no-db
  // A Ctrl-C of round 1 (no error) stays interrupted.
  nlohmann::json j = round1_json();
  j["status"] = "interrupted";
  EXPECT_EQ(run_meta_from_json(j, "m").status, RunStatus::kInterrupted);
}

TEST(RunMetaMigration, Round2RunDirectoriesReadAsToday) {
  const RunMeta sweep = read_run_meta(kRuns / "round2-sweep");
  EXPECT_EQ(sweep.kind, RunKind::kSweep);
  ASSERT_TRUE(sweep.machine_class);
  EXPECT_TRUE(sweep.node);
  ASSERT_TRUE(sweep.bandwidth);
  const RunMeta shard = read_run_meta(kRuns / "round2-shard");
  ASSERT_TRUE(shard.shard);
  EXPECT_EQ(shard.shard->count, 2);
  const RunMeta merged = read_run_meta(kRuns / "round2-merged");
  EXPECT_EQ(merged.kind, RunKind::kMerged);
  ASSERT_TRUE(merged.merge);
  EXPECT_EQ(merged.merge->shard_count, 2);
  EXPECT_FALSE(merged.merge->sources.empty());
  const RunMeta trace = read_run_meta(kRuns / "round2-trace");
  EXPECT_EQ(trace.kind, RunKind::kRoutingTrace);
  EXPECT_EQ(trace.run_id, "round2-trace");  // round 2 wrote none: the folder names it
  EXPECT_EQ(trace.status, RunStatus::kComplete);
  const RunMeta serve = read_run_meta(kRuns / "round2-serve");
  EXPECT_EQ(serve.kind, RunKind::kServe);
  EXPECT_EQ(serve.status, RunStatus::kComplete);
  ASSERT_TRUE(serve.serve);
  EXPECT_FALSE(serve.serve->workloads.empty());
}

// Each kind's facts are members (issue 47 item 2); a file of this schema
// (written before they were) writes back as it was read.
TEST(RunMeta, EachKindsFactsAreTypedAndWriteBackUnchanged) {
  const RunMeta sweep = read_run_meta(kRuns / "round5-engines");
  ASSERT_TRUE(sweep.plan);
  EXPECT_EQ(sweep.plan->points, 4);
  EXPECT_EQ(sweep.planned_points(), 4);
  EXPECT_EQ(sweep.plan->engines, (std::vector<std::string>{"default", "release-3.22.1"}));
  ASSERT_TRUE(sweep.outcome);
  EXPECT_EQ(sweep.outcome->ok_points, 4);
  EXPECT_EQ(sweep.outcome->planned_points, 4);
  ASSERT_TRUE(sweep.sweep);
  EXPECT_TRUE(sweep.sweep->spec.is_object());
  EXPECT_TRUE(sweep.sweep->counters.is_object());
  EXPECT_TRUE(sweep.kind_facts.empty()) << sweep.kind_facts.dump();
  const RunMeta serve = read_run_meta(kRuns / "round2-serve");
  ASSERT_TRUE(serve.serve);
  EXPECT_FALSE(serve.serve->model.empty());
  EXPECT_EQ(serve.serve->server_configs.size(), 1u);
  EXPECT_TRUE(serve.serve->prompt_tokens_exact.has_value());
  EXPECT_TRUE(serve.kind_facts.empty()) << serve.kind_facts.dump();
  EXPECT_FALSE(serve.sweep);
  const fs::path round5 = kRuns / "round5-engines";
  EXPECT_EQ(to_json(read_run_meta(round5)), read_json_file(round5 / "meta.json", "test data"));
}

TEST(RunMeta, AnotherMoesweepsKeysSurviveARewrite) {
  nlohmann::json j = round1_json();
  j["schema_version"] = kRunMetaSchema;
  j["energy"] = {{"joules", 12.5}};
  j["build"]["engine"]["cpu_variant"] = "zen4";
  j["build"]["flags"] = {"-march=znver4"};
  const fs::path dir = run_with(j);
  RunMeta m = read_run_meta(dir);
  m.status = RunStatus::kInterrupted;
  write_run_meta(dir, m);
  const nlohmann::json back = read_json_file(dir / "meta.json", "test");
  EXPECT_EQ(back["energy"]["joules"], 12.5);
  EXPECT_EQ(back["build"]["engine"]["cpu_variant"], "zen4");
  EXPECT_EQ(back["build"]["flags"][0], "-march=znver4");
  EXPECT_EQ(back["status"], "interrupted");
  EXPECT_EQ(back["schema_version"], kRunMetaSchema);
  // Written and read again: the same document.
  EXPECT_EQ(to_json(read_run_meta(dir)), back);
}

TEST(RunMeta, EveryKindIsReadAndWrittenByItsOneName) {
  for (RunKind kind : kRunKinds) {
    nlohmann::json j = round1_json();
    j["schema_version"] = kRunMetaSchema;
    j["kind"] = run_kind_name(kind);
    const RunMeta m = read_run_meta(run_with(j));
    EXPECT_EQ(m.kind, kind) << run_kind_name(kind);
    EXPECT_EQ(to_json(m)["kind"], run_kind_name(kind));
    EXPECT_EQ(parse_run_kind(run_kind_name(kind)), kind);
  }
  EXPECT_FALSE(parse_run_kind("Sweep"));
}

TEST(RunMeta, MistypedFieldsAreRefusedNamingTheFileAndTheField) {
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* says;
  };
  const Case cases[] = {
      {"/build/cpu/vendor", 5, "field 'build.cpu.vendor' is 5 | expected a string"},
      {"/build/cpu/family", "25", "field 'build.cpu.family' is \"25\" | expected an integer"},
      {"/build/cpu/logical_cpus", 4294967298ull, "field 'build.cpu.logical_cpus' is 4294967298"},
      {"/run_id", 5, "field 'run_id' is 5"},
      {"/status", "bogus", "field 'status' is \"bogus\""},
      {"/kind", "vllm",
       "field 'kind' is \"vllm\" | expected sweep, merged, serve or routing-trace"},
      {"/kind", 5, "field 'kind' is 5"},
      {"/machine_class", {{"family", -1}}, "field 'machine_class.family' is -1"},
      {"/shard",
       {{"plan_id", "ab"}, {"index", 4294967296ull}, {"count", 2}},
       "field 'shard.index' is 4294967296"},
      {"/shard", {{"plan_id", "ab"}, {"index", 0}, {"count", "2"}}, "field 'shard.count'"},
      {"/models", {{{"path", 3}}}, "field 'models[0].path' is 3"},
      {"/bandwidth", {{"gbps", "fast"}}, "field 'bandwidth.gbps'"},
      {"/plan", {{"points", 1e30}}, "field 'plan.points'"},
      {"/schema_version", 99, "has schema_version 99, from a newer moesweep"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = round1_json();
    j[nlohmann::json::json_pointer(c.pointer)] = c.value;
    const fs::path dir = run_with(j);
    const std::string problem = test::refused([&] { read_run_meta(dir); });
    EXPECT_NE(problem.find((dir / "meta.json").string()), std::string::npos) << problem;
    EXPECT_NE(problem.find(c.says), std::string::npos) << c.pointer << ": " << problem;
  }
}

TEST(RunMeta, BrokenFilesAreErrorsAndOnlyAMissingOneIsNone) {
  const fs::path dir = test::scratch_dir() / "run";
  fs::create_directories(dir);
  EXPECT_FALSE(read_run_meta_if_present(dir));
  std::ofstream(dir / "meta.json") << R"({"run_id": "x", "status": "compl)";  // truncated
  EXPECT_NE(test::refused([&] { read_run_meta_if_present(dir); }).find("is not valid JSON"),
            std::string::npos);
  std::ofstream(dir / "meta.json")
      << "{\"a\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  EXPECT_NE(test::refused([&] { read_run_meta_if_present(dir); }).find("nests arrays/objects"),
            std::string::npos);
  std::ofstream(dir / "meta.json") << "[1, 2]";
  EXPECT_NE(test::refused([&] { read_run_meta(dir); }).find("the file is [1,2]"),
            std::string::npos);
}

}  // namespace
}  // namespace moesweep
