// `moesweep l3-run` and `moesweep l3 RUN` end to end on the real engine:
// the memory-bound check decides between the experiment and the verdict that
// this machine cannot show a cache effect; the experiment measures every
// twin in every block, fits the cliff and validates the cache models
// against its own traces. The machine's cache figures come from a probe
// file written here (the real probe takes minutes and its numbers are this
// machine's): a usable L3 of 3 MiB, and an expert GEMV speed that makes the
// shape memory-bound or not.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "hw/bandwidth_probe.hpp"
#include "hw/cache_probe.hpp"
#include "results/run_source.hpp"
#include "run/run_directory.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

// Points MOESWEEP_CACHE_DIR at a fresh directory holding a probe result with
// `kernel_gbps` as the GEMV's out-of-cache speed; restores it when destroyed.
class ProbeHere {
 public:
  explicit ProbeHere(double kernel_gbps) {
    const char* before = std::getenv("MOESWEEP_CACHE_DIR");
    kept_ = before ? before : "";
    ::setenv("MOESWEEP_CACHE_DIR", (test::scratch_dir() / "cache").c_str(), 1);
    CacheProbeResult r;
    r.machine_key = machine_key();
    r.threads = 1;
    r.private_cache_bytes = 512 << 10;
    r.effective_l3_bytes = r.effective_l3_bytes_all = 3 << 20;
    r.gemv = {{1 << 20, 4 * kernel_gbps, 0}, {256 << 20, kernel_gbps, 0}};
    save_cached_cache_probe(r);
  }
  ~ProbeHere() {
    if (kept_.empty())
      ::unsetenv("MOESWEEP_CACHE_DIR");
    else
      ::setenv("MOESWEEP_CACHE_DIR", kept_.c_str(), 1);
  }

 private:
  std::string kept_;
};

nlohmann::json result_in(const std::filesystem::path& out) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(out))
    if (e.path().filename() == "l3_result.json") return read_json_file(e.path(), "l3 result");
  ADD_FAILURE() << "no l3_result.json under " << out;
  return {};
}

TEST(L3Run, AComputeBoundShapeEndsInAVerdictNotACurve) {
  const ProbeHere probe(1000);  // a kernel this fast makes every shape's experts negligible
  const auto out = test::scratch_dir() / "runs";
  const test::CommandResult r =
      test::run_cli("l3-run -r 1 -n 4 --no-dense --quiet --out-dir '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cannot show a cache effect"), std::string::npos) << r.out;
  const nlohmann::json j = result_in(out);
  EXPECT_FALSE(j.contains("working_set"));
  EXPECT_GE(j["pilots"].size(), 2u);
  EXPECT_NE(j["verdict"].get<std::string>().find("usable cache"), std::string::npos);
}

TEST(L3Run, AMemoryBoundShapeIsMeasuredInBlocksFittedAndValidated) {
  const ProbeHere probe(0.2);  // a slow kernel: the experts are most of a token
  const auto out = test::scratch_dir() / "runs";
  const test::CommandResult r = test::run_cli(
      "l3-run -r 1 -n 4 --blocks 3 --no-dense --quiet "
      "--out-dir '" +
      out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = result_in(out);
  ASSERT_TRUE(j.contains("working_set")) << j.dump(1);
  const nlohmann::json& curve = j["working_set"]["series"][0];
  EXPECT_GE(curve["x"].size(), 8u);
  EXPECT_GE(curve["memory_bound_share"].get<double>(), 0.5);
  EXPECT_TRUE(curve["fit"].contains("position_bytes"));
  EXPECT_EQ(j["working_set"]["l3_effective_bytes"], 3 << 20);
  // Every twin in every block, each block once.
  std::set<std::pair<int, int>> seen;
  std::set<int> blocks;
  const std::filesystem::path run = j["run"].get<std::string>();
  for (const Record& rec : read_records_jsonl(run / "records.jsonl")) {
    EXPECT_TRUE(seen.insert({rec.params.experts, rec.params.block}).second);
    blocks.insert(rec.params.block);
  }
  EXPECT_EQ(blocks, (std::set<int>{1, 2, 3}));
  EXPECT_EQ(seen.size(), 3 * curve["x"].size());
  // The cache models against the run's own traces.
  ASSERT_TRUE(j.contains("validation")) << j.dump(1);
  EXPECT_EQ(j["validation"]["models"].size(), 5u);
  EXPECT_FALSE(j["validation"]["best"].get<std::string>().empty());
  EXPECT_TRUE(std::filesystem::exists(run / "l3_validation" / "validation.json"));
}

TEST(L3Run, ValidatingARunWithoutTracesSaysWhatToDo) {
  const auto dir = test::scratch_dir() / "run";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "records.jsonl") << "";
  const test::CommandResult r = test::run_cli("l3 '" + dir.string() + "' --no-plot");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("--trace-routing"), std::string::npos) << r.err;
}

// l3_validation/ is written under the run's lock: a run another moesweep is
// still measuring is refused, and nothing is written into it.
TEST(L3Run, ValidatingARunStillBeingMeasuredIsRefused) {
  const auto dir = test::scratch_dir() / "run";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "records.jsonl") << "";
  const RunLock held(dir);  // as the sweep measuring it holds it
  const test::CommandResult r = test::run_cli("l3 '" + dir.string() + "' --no-plot");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("is running '" + dir.string() + "' right now"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "l3_validation"));
}

}  // namespace
}  // namespace moesweep
