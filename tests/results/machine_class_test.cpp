// The CI gate compares like with like: a machine class with a stable id,
// CPU features compared as sets, compare refusing runs of different classes
// (exit 2) unless --allow-environment-change, baselines looked up per class,
// and recorded baselines without the recording machine's paths.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "results/baseline_store.hpp"
#include "results/compare.hpp"
#include "results/machine_class.hpp"
#include "results/run_meta.hpp"
#include "results/sample_sets.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

// A run's class from its meta.json as a JSON value (through the typed reader).
MachineClass machine_class_from_meta(const nlohmann::json& meta) {
  return machine_class_of(run_meta_from_json(meta, "test meta.json"));
}

// meta.json's "build" object as the sweep writes it (build_info_json()).
nlohmann::json build_json(const std::string& vendor, int family, int model, int cpus,
                          std::vector<std::string> features,
                          const std::string& commit = "80fb11ac73e66d89eae2c6a91d8a77428fa733ed") {
  return {{"cpu",
           {{"vendor", vendor},
            {"family", family},
            {"model", model},
            {"logical_cpus", cpus},
            {"model_name", "test CPU"}}},
          {"cpu_features", features},
          {"engine", {{"commit", commit}, {"name", "llama.cpp"}, {"release", "v0.4.0"}}}};
}

const std::vector<std::string> kZen5Features = {
    "SSE3", "SSSE3", "AVX",    "AVX_VNNI",    "AVX2",        "BMI2",
    "F16C", "FMA",   "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16"};
const std::vector<std::string> kZen3Features = {"SSE3", "SSSE3", "AVX", "AVX2",
                                                "BMI2", "F16C",  "FMA"};

nlohmann::json meta_of(const std::string& run_id, const nlohmann::json& build, uint64_t l3) {
  return {{"run_id", run_id},
          {"status", "complete"},
          {"build", build},
          {"machine_class", to_json(machine_class_from_build(build, l3))}};
}

nlohmann::json zen5_meta(const std::string& id) {
  return meta_of(id, build_json("AuthenticAMD", 26, 2, 2, kZen5Features), 32ull << 20);
}
nlohmann::json zen3_meta(const std::string& id) {
  return meta_of(id, build_json("AuthenticAMD", 25, 1, 2, kZen3Features), 32ull << 20);
}

// A run directory as the sweep writes it: meta.json + records.jsonl
// (threads {1, 2} x depths {0, 256, 512}, 5 repetitions, TG scaled by tg_factor).
fs::path write_run(const fs::path& dir, const nlohmann::json& meta, uint64_t seed,
                   double tg_factor = 1.0) {
  fs::create_directories(dir);
  std::ofstream(dir / "meta.json") << meta.dump(2);
  std::ofstream out(dir / "records.jsonl");
  int index = 0;
  for (int threads : {1, 2}) {
    for (int n_kv : {0, 256, 512}) {
      const double pp = 120.0 * threads, tg = 12.0 * threads * tg_factor;
      out << record_to_json(test::make_record(meta.value("run_id", "r"), index, threads, n_kv,
                                              test::normal_samples(seed + index, 5, pp, 1),
                                              test::normal_samples(seed + 50 + index, 5, tg, 0.1)))
                 .dump()
          << "\n";
      ++index;
    }
  }
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Shell-quoted (appended piecewise: GCC 12 warns -Wrestrict on "'" + s + "'").
std::string q(const fs::path& p) {
  std::string out = "'";
  out += p.string();
  out += '\'';
  return out;
}

TEST(MachineClass, IdIsStableAndIgnoresFeatureOrder) {
  const nlohmann::json build = build_json("AuthenticAMD", 26, 2, 2, kZen5Features);
  const MachineClass a = machine_class_from_build(build, 32ull << 20);
  // Baseline folders are named by this id: it must not change between versions
  // (3e03c622: FNV-1a 64 of "AVX,AVX2,...,SSSE3,|", low 32 bits; before issue 19
  // the engine commit followed the '|').
  EXPECT_EQ(machine_class_id(a), "amd-26-2-2cpu-l3_32m-3e03c622");
  std::vector<std::string> reversed(kZen5Features.rbegin(), kZen5Features.rend());
  const MachineClass b =
      machine_class_from_build(build_json("AuthenticAMD", 26, 2, 2, reversed), 32ull << 20);
  EXPECT_EQ(machine_class_id(b), machine_class_id(a));
  EXPECT_TRUE(machine_class_differences(a, b).empty());
  // Written into meta.json and read back: the same class.
  const MachineClass back = machine_class_from_meta({{"machine_class", to_json(a)}});
  EXPECT_EQ(machine_class_id(back), machine_class_id(a));
  // Another engine commit is the same class (the engine is what compare
  // compares, issue 19); another CPU count is another class.
  const MachineClass c = machine_class_from_build(
      build_json("AuthenticAMD", 26, 2, 2, kZen5Features, "0123456"), 32ull << 20);
  EXPECT_EQ(machine_class_id(c), machine_class_id(a));
  EXPECT_TRUE(machine_class_differences(a, c).empty());
  const MachineClass c4 =
      machine_class_from_build(build_json("AuthenticAMD", 26, 2, 4, kZen5Features), 32ull << 20);
  EXPECT_NE(machine_class_id(c4), machine_class_id(a));
  EXPECT_EQ(machine_class_differences(a, c4).size(), 1u);
  const MachineClass d =
      machine_class_from_build(build_json("GenuineIntel", 6, 167, 4, kZen5Features), 0);
  EXPECT_EQ(machine_class_id(d).rfind("intel-6-167-4cpu-l3_0-", 0), 0u) << machine_class_id(d);
  // A run from before the field: L3 not recorded, which is no difference.
  const MachineClass old = machine_class_from_meta({{"build", build}});
  EXPECT_TRUE(old.known);
  EXPECT_FALSE(old.l3_bytes.has_value());
  EXPECT_NE(machine_class_id(old).find("-l3_na-"), std::string::npos);
  EXPECT_TRUE(machine_class_differences(old, a).empty());
  // A published table has no build facts: unknown, never "different".
  EXPECT_FALSE(machine_class_from_meta(nlohmann::json::object()).known);
  EXPECT_TRUE(machine_class_differences(MachineClass{}, a).empty());
}

TEST(MachineClass, FeatureListsAreComparedAsSets) {
  const MachineClass zen5 = machine_class_from_meta(zen5_meta("a"));
  const MachineClass zen3 = machine_class_from_meta(zen3_meta("b"));
  const auto diffs = machine_class_differences(zen5, zen3);
  std::string all;
  for (const auto& d : diffs) all += d + "\n";
  EXPECT_NE(all.find("CPU family: 26 -> 25"), std::string::npos) << all;
  EXPECT_NE(all.find("build CPU features: -AVX512 -AVX512_BF16 -AVX512_VBMI -AVX512_VNNI "
                     "-AVX_VNNI\n"),
            std::string::npos)
      << all;
  // The environment list of compare: one set difference, never index by index.
  LoadedRun base, fresh;
  base.meta = run_meta_from_json(zen5_meta("a"), "test");
  fresh.meta = run_meta_from_json(zen3_meta("b"), "test");
  const Comparison c = compare_runs(base, fresh, {});
  std::string env;
  for (const auto& d : c.environment_differences) env += d + "\n";
  EXPECT_NE(env.find("/build/cpu_features: -AVX512"), std::string::npos) << env;
  EXPECT_EQ(env.find("AVX_VNNI -> AVX2"), std::string::npos) << env;
  EXPECT_EQ(env.find("/build/cpu_features/"), std::string::npos) << env;
  EXPECT_FALSE(c.machine_differences.empty());
  EXPECT_THROW(check_same_machine_class(c), UserError);
}

TEST(CompareMachineClass, CliRefusesRunsOfDifferentClassesUnlessAllowed) {
  const fs::path dir = test::scratch_dir();
  const fs::path base = write_run(dir / "20261129-204616-ci", zen5_meta("20261129-204616-ci"), 1);
  const fs::path same = write_run(dir / "20261130-100000-ci", zen5_meta("20261130-100000-ci"), 2);
  const fs::path other = write_run(dir / "20261130-110000-ci", zen3_meta("20261130-110000-ci"), 2);
  const std::string db = " --db " + q(dir / "none.sqlite");

  auto r = test::run_cli("compare " + q(base) + " " + q(other) + db);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("different machine classes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CPU family: 26 -> 25"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--allow-environment-change"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << "no verdict across classes: " << r.out;

  r = test::run_cli("compare " + q(base) + " " + q(other) + db + " --allow-environment-change");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const size_t note = r.out.find("Environment change allowed (--allow-environment-change)");
  ASSERT_NE(note, std::string::npos) << r.out;
  EXPECT_LT(note, r.out.find("new/base [95% CI]")) << "the note comes before the table: " << r.out;

  r = test::run_cli("compare " + q(base) + " " + q(other) + db +
                    " --allow-environment-change --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["machine_class"]["environment_change_allowed"].get<bool>());
  EXPECT_FALSE(j["machine_class"]["differences"].empty());

  r = test::run_cli("compare " + q(base) + " " + q(same) + db);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Machine class: `amd-26-2-2cpu-l3_32m-"), std::string::npos) << r.out;
}

TEST(BaselineStore, CompareUsesTheBaselineOfTheNewRunsClass) {
  const fs::path dir = test::scratch_dir();
  const fs::path store = dir / "baselines" / "ci";
  for (const auto& [id, meta] :
       {std::pair{"20261129-204616-ci", zen5_meta("20261129-204616-ci")},
        std::pair{"20261129-204700-ci", zen3_meta("20261129-204700-ci")}}) {
    const auto r =
        test::run_cli("baseline add " + q(write_run(dir / "runs" / id, meta, 10)) + " " + q(store));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  ASSERT_TRUE(is_baseline_store(store));
  ASSERT_EQ(baseline_classes(store).size(), 2u);
  const std::string zen3_id = machine_class_id(machine_class_from_meta(zen3_meta("x")));
  const std::string db = " --db " + q(dir / "none.sqlite");
  // A Zen 3 run 40% slower in TG: compared with the Zen 3 baseline, a regression.
  const fs::path slow =
      write_run(dir / "20261130-120000-ci", zen3_meta("20261130-120000-ci"), 20, 0.6);
  auto r = test::run_cli("compare " + q(store) + " " + q(slow) + db);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("## moesweep compare: " + zen3_id), std::string::npos) << r.out;
  // A runner of a class the store does not have: exit 2 and how to record one.
  const nlohmann::json intel = meta_of(
      "20261130-130000-ci", build_json("GenuineIntel", 6, 167, 2, kZen5Features), 480ull << 20);
  const fs::path fresh = write_run(dir / "20261130-130000-ci", intel, 30);
  r = test::run_cli("compare " + q(store) + " " + q(fresh) + db);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no baseline of machine class intel-6-167-2cpu-l3_480m-"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(zen3_id), std::string::npos) << "the classes it has are listed: " << r.err;
  EXPECT_NE(r.err.find("moesweep gate --update"), std::string::npos) << r.err;
  // Crossing classes needs one class to cross to: with two, it stays refused.
  r = test::run_cli("compare " + q(store) + " " + q(fresh) + db + " --allow-environment-change");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

TEST(BaselineStore, RecordingStripsMachinePathsAndKeepsTheNewest) {
  const fs::path dir = test::scratch_dir();
  const fs::path store = dir / "store";
  fs::path member;
  for (const char* id : {"20261129-204531-ci", "20261129-204549-ci", "20261129-204616-ci"}) {
    nlohmann::json meta = zen5_meta(id);
    meta.erase("machine_class");  // as runs made before the field: derived when recorded
    meta["models"] = {
        {{"path", "/home/ci/build/test-cache/twins/kimi-k2.5-tiny.gguf"}, {"sha256", "15cc8b00"}}};
    meta["command_line"] = {"/home/ci/build/bin/moesweep", "sweep", "--out-dir", "/home/ci/runs"};
    member = record_baseline(write_run(dir / "runs" / id, meta, 40), store, 2).member;
  }
  const fs::path class_dir = member.parent_path();
  EXPECT_EQ(member.filename(), "20261129-204616-ci");
  const auto classes = baseline_classes(store);
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].runs, 2) << "keeps the newest 2";
  EXPECT_FALSE(fs::exists(class_dir / "20261129-204531-ci"));
  EXPECT_EQ(class_dir.filename().string(), machine_class_id(classes[0].machine));
  for (const char* file : {"meta.json", "records.jsonl"}) {
    const std::string text = slurp(member / file);
    EXPECT_EQ(text.find("\"/"), std::string::npos) << file << " keeps a machine path:\n" << text;
  }
  const auto meta = nlohmann::json::parse(slurp(member / "meta.json"));
  EXPECT_EQ(meta["models"][0]["path"], "kimi-k2.5-tiny.gguf");
  EXPECT_EQ(meta["machine_class"]["id"], class_dir.filename().string());
  const auto records = read_records_jsonl(member / "records.jsonl");
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records[0].params.model_path, "kimi-k2.5-tiny-Q4_K_S.gguf");
  EXPECT_EQ(records[0].tg.tokens_per_s.size(), 5u);
}

TEST(CommittedBaselines, AreFiledByMachineClassWithoutMachinePaths) {
  const fs::path store = fs::path(MOESWEEP_SOURCE_DIR) / "results" / "baselines" / "ci";
  ASSERT_TRUE(is_baseline_store(store)) << store;
  const auto classes = baseline_classes(store);
  ASSERT_FALSE(classes.empty());
  for (const auto& c : classes) {
    EXPECT_TRUE(c.machine.known) << c.dir;
    EXPECT_EQ(c.dir.filename().string(), machine_class_id(c.machine));
  }
  for (const auto& e : fs::recursive_directory_iterator(store)) {
    if (!e.is_regular_file()) continue;
    const std::string text = slurp(e.path());
    EXPECT_EQ(text.find("\"/"), std::string::npos) << e.path() << " holds an absolute path";
  }
}

}  // namespace
}  // namespace moesweep
