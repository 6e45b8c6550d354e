// The CI gate end to end on a real sweep: meta.json names the machine class,
// `moesweep baseline add` files the run under it, `baseline find` finds it on
// this machine, and compare against the store uses it. A store without this
// machine's class is refused with the command that records one.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "results/machine_class.hpp"
#include "results/run_meta.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

// The same invocation as sweep_run_test's main run, so the run is made once.
fs::path main_run_dir() {
  static const test::SharedRun run = test::shared_cli_run(
      "sweep-main",
      "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1,2 --depths 0,256,512 -c 1024 -ub 256 -n 4 "
      "-r 2 --counters none --no-db --quiet");
  return test::only_run_dir(run.out_dir);
}

// A run's class from its meta.json as a JSON value (through the typed reader).
MachineClass machine_class_from_meta(const nlohmann::json& meta) {
  return machine_class_of(run_meta_from_json(meta, "test meta.json"));
}

// Shell-quoted (appended piecewise: GCC 12 warns -Wrestrict on "'" + s + "'").
std::string q(const fs::path& p) {
  std::string out = "'";
  out += p.string();
  out += '\'';
  return out;
}

TEST(BaselineGate, SweepRecordsItsMachineClassAndTheStoreFindsIt) {
  const fs::path run = main_run_dir();
  const auto meta = nlohmann::json::parse(std::ifstream(run / "meta.json"));
  ASSERT_TRUE(meta.contains("machine_class")) << meta.dump(2);
  const MachineClass machine = machine_class_from_meta(meta);
  ASSERT_TRUE(machine.known);
  EXPECT_TRUE(machine.l3_bytes.has_value());
  EXPECT_EQ(meta["machine_class"]["id"], machine_class_id(machine));
  EXPECT_EQ(machine.logical_cpus, meta["build"]["cpu"]["logical_cpus"].get<int>());

  const fs::path store = test::scratch_dir() / "baselines" / "ci";
  auto r = test::run_cli("baseline add " + q(run) + " " + q(store));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(store / machine_class_id(machine) / meta["run_id"].get<std::string>() /
                         "records.jsonl"))
      << r.out;
  r = test::run_cli("baseline find " + q(store));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, (store / machine_class_id(machine)).string() + "\n");
  // The run against itself filed as a baseline: same class, same samples. Two
  // repetitions a point cannot see a 5% change: inconclusive (5), never 4.
  r = test::run_cli("compare " + q(store) + " " + q(run) + " --db " + q(store / "none.sqlite"));
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_NE(r.out.find("**Gate: inconclusive"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Machine class: `" + machine_class_id(machine) + "` (both)"),
            std::string::npos)
      << r.out;
}

TEST(BaselineGate, StoreWithoutThisMachinesClassNamesTheRecordingCommand) {
  const fs::path store = test::scratch_dir() / "baselines" / "ci";
  const fs::path member = store / "other-1-1-1cpu-l3_0-00000000" / "20260101-000000-ci";
  fs::create_directories(member);
  std::ofstream(member / "records.jsonl") << "";
  std::ofstream(member / "meta.json") << R"({"machine_class": {"vendor": "OtherVendor",
      "family": 1, "model": 1, "logical_cpus": 1, "l3_bytes": 0, "cpu_features": [],
      "engine_commit": "0"}})";
  const auto r = test::run_cli("baseline find " + q(store));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("has no baseline of machine class"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("other-1-1-1cpu-l3_0-00000000"), std::string::npos) << r.err;
  // How to make one, or how to gate without one (issue 48); the class is the
  // hardware, never the engine build (results/machine_class.hpp).
  EXPECT_NE(r.err.find("moesweep baseline add RUN_DIR"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("moesweep gate --update"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("moesweep gate --base"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("engine commit"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
