// `moesweep gate` on real engine builds (issues 19, 31 and 45): a planted
// slowdown is caught (exit 4) and named in gate.md and junit.xml, two
// identical builds are never called a regression, the exact gate catches
// planted work per token, and scripts/regress still runs it. These tests
// decide on measured speeds, so ctest runs this folder alone (RUN_SERIAL,
// tests/CMakeLists.txt): beside another test's engine build the samples
// spread 25-50% and even a 50% slowdown was out of reach of five pairs. The
// engines are the shared registry's (engine/shared_engines.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/shared_engines.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ensure_engine;
using test::shell_quoted;
using test::with_registry;

// The CI gate's shape, smaller: one thread, two depths, five repetitions.
fs::path small_profile(const fs::path& dir) {
  std::ofstream(dir / "gate.json") << R"({"name": "gate", "model": "kimi-k2.5", "scale": "tiny",
    "threads": "1", "depths": "0,256", "ctx-size": 1024, "n-gen": "32", "repetitions": "5",
    "counters": "none"})";
  return dir / "gate.json";
}

// `moesweep gate --base BASE --new NEW ARGS` with its runs under dir/NEW and
// $GITHUB_STEP_SUMMARY at dir/summary.md.
test::CommandResult gate(const fs::path& dir, const std::string& base, const std::string& fresh,
                         const std::string& args) {
  return test::run_shell(with_registry("GITHUB_STEP_SUMMARY=" + shell_quoted(dir / "summary.md") +
                                       " " + test::cli_path() + " gate --base " + base + " --new " +
                                       fresh + " --out-dir " + shell_quoted(dir / fresh) + " " +
                                       args));
}

// junit.xml as tests/gate/junit_check.py reads it (it fails on a file that
// breaks the junit-10 schema's rules).
json junit_of(const fs::path& run) {
  const auto r = test::run_shell("python3 " + std::string(test::source_dir()) +
                                 "/tests/gate/junit_check.py " + shell_quoted(run / "junit.xml"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json::object();
}

int cases_with(const json& junit, const std::string& result, const std::string& classname = "") {
  int n = 0;
  for (const json& c : junit.value("cases", json::array()))
    n += c.at("result") == result &&
         (classname.empty() || c.at("classname").get<std::string>() == classname);
  return n;
}

TEST(GateCommand, CatchesAPlantedSlowdownAndSaysSoInMarkdownAndJunit) {
  ensure_engine("planted50", "--release 3.21.1 --cmake-flag -DMOESWEEP_PLANTED_TG_SLOWDOWN_PCT=50");
  const fs::path dir = test::scratch_dir();
  const auto r = gate(dir, "default", "planted50", "--profile " + shell_quoted(small_profile(dir)));
  ASSERT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("planted TG slowdown 50%"), std::string::npos) << r.out;
  const fs::path run = test::only_run_dir(dir / "planted50");
  const json junit = junit_of(run);
  EXPECT_EQ(junit["properties"].value("verdict", ""), "regression") << junit;
  EXPECT_GE(cases_with(junit, "failure", "moesweep.gate.S_TG"), 1) << junit;
  EXPECT_EQ(junit["tests"], junit["cases"].size());
  const std::string md = test::slurp(run / "gate.md");
  EXPECT_NE(md.find("moesweep gate: **regression** (exit 4)"), std::string::npos) << md;
  EXPECT_NE(md.find("Failed ("), std::string::npos) << md;
  EXPECT_NE(md.find("| threads 1, N_KV 0 | S_TG | 0."), std::string::npos) << md;  // ratio < 1
  EXPECT_NE(md.find("MDE "), std::string::npos) << md;
  EXPECT_NE(test::slurp(dir / "summary.md").find(md), std::string::npos);  // the step summary
  EXPECT_TRUE(fs::is_regular_file(run / "compare.md") && fs::is_regular_file(run / "compare.json"));
}

// Two real workers of one build: passes or, its MDE above the threshold, says
// inconclusive (5); never a regression, and junit.xml has no failure.
TEST(GateCommand, IdenticalBuildsNeverFail) {
  test::ensure_same_build("same-build");
  const fs::path dir = test::scratch_dir();
  const auto r = gate(dir, "default", "same-build",
                      "--alpha 0.001 --profile " + shell_quoted(small_profile(dir)));
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.out << r.err;
  const fs::path run = test::only_run_dir(dir / "same-build");
  const json junit = junit_of(run);
  EXPECT_EQ(cases_with(junit, "failure"), 0) << junit;
  EXPECT_EQ(junit["properties"].value("verdict", ""), r.exit_code == 0 ? "pass" : "inconclusive");
  const std::string md = test::slurp(run / "gate.md");
  EXPECT_NE(md.find(r.exit_code == 0 ? "**pass** (exit 0)" : "**inconclusive** (exit 5)"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("Failed ("), std::string::npos) << md;
}

// The exact gate: a worker that loops after every generated token does more
// instructions per token (exit 4, whatever the load); identical builds do not.
TEST(GateCommand, CountsCatchPlantedWorkAndPassIdenticalBuilds) {
  ensure_engine("planted-work", "--release 3.21.1 --cmake-flag -DMOESWEEP_PLANTED_TG_WORK=24300");
  test::ensure_same_build("same-build");
  const fs::path dir = test::scratch_dir();
  std::ofstream(dir / "counts.json") << R"({"name": "counts", "model": "kimi-k2.5",
    "scale": "tiny", "threads": "1", "depths": "0", "n-prompt": "32", "n-gen": "8",
    "repetitions": "1", "ctx-size": 512})";
  const std::string args = "--counts --profile " + shell_quoted(dir / "counts.json");
  auto r = gate(dir, "default", "planted-work", args);
  ASSERT_EQ(r.exit_code, 4) << r.out << r.err;
  json junit = junit_of(test::only_run_dir(dir / "planted-work"));
  EXPECT_EQ(cases_with(junit, "failure", "moesweep.gate.TG.instructions"), 1) << junit;
  r = gate(dir, "default", "same-build", args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  junit = junit_of(test::only_run_dir(dir / "same-build"));
  EXPECT_EQ(cases_with(junit, "failure"), 0) << junit;
  EXPECT_EQ(cases_with(junit, "skipped"), 0) << junit;
}

// Without --base: --update files the run under this machine's class in the
// store, and the next gate compares with it (two runs minutes apart, not
// pairs: a verdict either way is the machine's; what is checked is the
// plumbing: the class folder, the reports, never exit 2).
TEST(GateCommand, StoredBaselinesAreRecordedAndGatedOn) {
  const fs::path dir = test::scratch_dir();
  const std::string args = "--baseline " + shell_quoted(dir / "store") + " --out-dir " +
                           shell_quoted(dir / "runs") + " --profile " +
                           shell_quoted(small_profile(dir)) + " --quiet";
  auto r = test::run_cli("gate --update " + args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("filed "), std::string::npos) << r.err;
  int filed = 0;
  for (const auto& c : fs::directory_iterator(dir / "store"))
    for (const auto& run : fs::directory_iterator(c.path())) filed += run.is_directory();
  EXPECT_EQ(filed, 1);
  r = test::run_cli("gate " + args);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 4 || r.exit_code == 5) << r.out << r.err;
  EXPECT_NE(r.out.find("### moesweep gate: **"), std::string::npos) << r.out;
}

// scripts/regress is a wrapper: the same gate, --out-dir $REGRESS_DIR, and
// compare's options after a `--` as before.
TEST(GateCommand, ScriptsRegressRunsTheGate) {
  test::ensure_same_build("same-build");
  const fs::path dir = test::scratch_dir();
  const auto r = test::run_shell(with_registry(
      "MOESWEEP=" + std::string(test::cli_path()) + " REGRESS_DIR=" + shell_quoted(dir / "r") +
      " " + test::source_dir() + "/scripts/regress --base default --new same-build --profile " +
      shell_quoted(small_profile(dir)) + " -- --alpha 0.001"));
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.out << r.err;
  EXPECT_TRUE(fs::is_regular_file(test::only_run_dir(dir / "r") / "junit.xml"));
}

}  // namespace
}  // namespace moesweep
