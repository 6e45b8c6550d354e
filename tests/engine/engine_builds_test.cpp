// Real engine builds side by side (issue 19): `moesweep engine add` builds a
// worker against llama.cpp v0.5.0 from the npm registry (node-llama-cpp@3.22.1,
// prebuilt) and against the pinned v0.4.0 with a planted regression (the
// worker spins 3 ms after every generated token: -DMOESWEEP_PLANTED_TG_DELAY_US;
// or half of each token's decode time: -DMOESWEEP_PLANTED_TG_SLOWDOWN_PCT=50).
// Both are registered once per build tree (engine/shared_engines.hpp); each
// costs a worker build (minutes, once). The A/B gate's verdicts on them are in
// tests/gate/, which ctest runs alone (RUN_SERIAL): a verdict needs the machine.
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

}  // namespace
}  // namespace moesweep
