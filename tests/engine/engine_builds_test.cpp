// Real engine builds side by side (issue 19): `moesweep engine add` builds a
// worker against llama.cpp v0.5.0 from the npm registry (node-llama-cpp@3.22.1,
// prebuilt) and against the pinned v0.4.0 with a planted regression (the
// worker spins 3 ms after every generated token: -DMOESWEEP_PLANTED_TG_DELAY_US;
// or half of each token's decode time: -DMOESWEEP_PLANTED_TG_SLOWDOWN_PCT=50).
// Both are registered once per build tree (engine/shared_engines.hpp); each
// costs a worker build (minutes, once).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/engine_registry.hpp"
#include "engine/shared_engines.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

using test::ensure_engine;
using test::with_registry;

std::vector<nlohmann::json> records_of(const fs::path& run) {
  std::vector<nlohmann::json> out;
  for (const std::string& line : test::read_lines(run / "records.jsonl"))
    out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(EngineBuilds, TwoReleasesSideBySideInOneSweep) {
  ensure_engine("v050", "--release 3.22.1");
  auto r = test::run_shell(with_registry(std::string(test::cli_path()) + " engine list --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool listed = false;
  for (const auto& e : nlohmann::json::parse(r.out))
    if (e.at("name") == "v050") {
      listed = true;
      EXPECT_EQ(e.at("release"), "v0.5.0") << e.dump();
      EXPECT_FALSE(e.at("cpu_variant").get<std::string>().empty()) << e.dump();
    }
  EXPECT_TRUE(listed) << r.out;
  const fs::path out = test::scratch_dir() / "runs";
  r = test::run_shell(
      with_registry(std::string(test::cli_path()) +
                    " sweep -m kimi-k2.5 --scale tiny -t 1 -d 0,64 -c 512 -ub 64 -p 64 -n 8 -r 3 "
                    "--counters none --no-db --engine default,v050 --out-dir " +
                    test::shell_quoted(out)));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path run = test::only_run_dir(out);
  std::map<std::string, std::string> release_of;
  for (const auto& rec : records_of(run))
    release_of[rec.at("engine")] = rec.at("extra").at("engine").at("release");
  EXPECT_EQ(release_of["v050"], "v0.5.0");
  EXPECT_NE(release_of["default"], "v0.5.0");
  // The engines joined point by point, each side named by its build; the exit
  // code is the verdict's: 4 exactly when a point of v050 is a regression.
  r = test::run_cli("compare " + test::shell_quoted(run) + " --engines default,v050 --json");
  ASSERT_FALSE(r.out.empty()) << r.err;
  const nlohmann::json c = nlohmann::json::parse(r.out);
  EXPECT_EQ(c.at("engines").at("new").get<std::string>().rfind("v050: v0.5.0", 0), 0u) << c;
  EXPECT_EQ(c.at("engines").at("base").get<std::string>().rfind("default: ", 0), 0u) << c;
  ASSERT_EQ(c.at("points").size(), 2u) << c;  // -t 1 x -d 0,64, both engines at each
  bool regressed = false;
  for (const auto& p : c.at("points")) {
    for (const char* metric : {"pp", "tg"}) {
      EXPECT_EQ(p.at(metric).at("n_base"), 3) << p;
      EXPECT_EQ(p.at(metric).at("n_new"), 3) << p;
      regressed = regressed || p.at(metric).at("verdict") == "REGRESSION";
    }
  }
  EXPECT_TRUE(c.at("only_in_base").empty() && c.at("only_in_new").empty()) << c;
  EXPECT_EQ(c.at("regressions").get<int>() > 0, regressed) << c;
  if (regressed)
    EXPECT_EQ(r.exit_code, 4) << r.err;
  else
    EXPECT_NE(r.exit_code, 4) << r.err;
  EXPECT_NE(r.exit_code, 1) << r.err;
  EXPECT_NE(r.exit_code, 2) << r.err;
}

// scripts/regress --base default --new NEW on the CI gate's shape, smaller:
// one thread, two depths, five repetitions (in `dir`, its work under dir/NEW).
test::CommandResult ab_gate(const fs::path& dir, const std::string& fresh,
                            const std::string& compare_args = "") {
  std::ofstream(dir / "gate.json") << R"({"name": "gate", "model": "kimi-k2.5", "scale": "tiny",
    "threads": "1", "depths": "0,256", "ctx-size": 1024, "n-gen": "32", "repetitions": "5",
    "counters": "none"})";
  return test::run_shell(
      with_registry("MOESWEEP=" + std::string(test::cli_path()) +
                    " REGRESS_DIR=" + test::shell_quoted(dir / fresh) + " " +
                    std::string(test::source_dir()) + "/scripts/regress --base default --new " +
                    fresh + " --profile " + test::shell_quoted(dir / "gate.json") + compare_args));
}

TEST(EngineBuilds, TheAbGateCatchesAPlantedRegression) {
  ensure_engine("planted", "--release 3.21.1 --cmake-flag -DMOESWEEP_PLANTED_TG_DELAY_US=3000");
  const auto r = ab_gate(test::scratch_dir(), "planted");
  // 3 ms a token is a few per cent of decode: a quiet machine's gate sees it
  // (4); where other work spreads the samples, the gate's MDE can exceed the
  // change and it must say so (5, "cannot detect"). Never a pass.
  ASSERT_TRUE(r.exit_code == 4 || r.exit_code == 5) << r.out << r.err;
  EXPECT_NE(
      r.out.find(r.exit_code == 4 ? "real regression" : "inconclusive: this run cannot detect"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("planted TG delay 3000 us"), std::string::npos) << r.out;
}

// Issue 31: a planted 50% decode slowdown (the worker spins half of each
// token's own decode time) is a regression (exit 4) on the gate's shape; the
// A/A gate of two identical builds on the same shape is never one at a strict
// alpha: it passes or, its MDE above the threshold, says inconclusive (5).
TEST(EngineBuilds, TheAbGateCatchesAPlantedFiftyPercentSlowdownAndAaIsNeverFour) {
  ensure_engine("planted50", "--release 3.21.1 --cmake-flag -DMOESWEEP_PLANTED_TG_SLOWDOWN_PCT=50");
  const fs::path dir = test::scratch_dir();
  auto r = ab_gate(dir, "planted50");
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("planted TG slowdown 50%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("], MDE "), std::string::npos) << r.out;
  // this build's own worker under a second name: two real workers of one build
  RegisteredEngine same;
  same.name = "same-build";
  same.source = "this build's worker, registered by hand (test)";
  same.worker = fs::absolute(fs::path(test::cli_path()).parent_path() / "moesweep-worker");
  fs::create_directories(test::shared_registry() / "same-build");
  write_engine_file(test::shared_registry() / "same-build" / "engine.json", same);
  r = ab_gate(dir, "same-build", " -- --alpha 0.001");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.out << r.err;
  EXPECT_NE(r.out.find("**Gate: "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace moesweep
