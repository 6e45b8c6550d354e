// `moesweep gate` runs whose outcome no load can change, so they may run
// beside other tests (unlike tests/gate/, which ctest runs alone): the exact
// gate (counts under valgrind are the same at any load), and plumbing whose
// wall-time verdict is not what is checked (stored baselines, scripts/regress;
// an A/A gate at alpha 0.001 may only pass or say inconclusive).
#include <gtest/gtest.h>

#include "gate/gate_runs.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::cases_with;
using test::ensure_engine;
using test::gate;
using test::junit_of;
using test::shell_quoted;
using test::small_profile;
using test::with_registry;

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
