// `sweep --shard` on the real engine (tiny twin): a shard runs into its own
// run with the node's facts, a second start continues its unfinished run
// (a re-queued array task) and does nothing once it is complete.
#include <gtest/gtest.h>

#include <fstream>

#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

TEST(SweepShardRun, RunsContinuesAndStopsWhenComplete) {
  test::tiny_twin();
  const auto dir = test::scratch_dir();
  const std::string plan = (dir / "P").string(), runs = (dir / "runs").string();
  ASSERT_EQ(test::run_cli("plan -m kimi-k2.5 --scale tiny -q Q4_K_S --ubatch-size 32,64 "
                          "--threads 1 --depths 0,64 -r 1 -n 4 -ctk q8_0 -ctv q8_0 -fa on "
                          "--shards 2 --out " +
                          plan)
                .exit_code,
            0);
  const std::string shard = " sweep --quiet --no-db --out-dir " + runs + " --shard " + plan;
  auto r = test::run_shell("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_JOB_ID=77 SLURM_JOB_ID=78 " +
                           std::string(MOESWEEP_CLI) + shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = test::only_run_dir(runs);
  nlohmann::json meta = read_json_file(run / "meta.json", "meta");
  EXPECT_EQ(meta["shard"]["index"], 1);
  EXPECT_EQ(meta["shard"]["count"], 2);
  EXPECT_EQ(meta["node"]["slurm"]["SLURM_ARRAY_JOB_ID"], "77");
  EXPECT_EQ(meta["node"]["slurm"]["SLURM_ARRAY_TASK_ID"], "1");
  EXPECT_FALSE(meta["node"]["host"].get<std::string>().empty());
  EXPECT_FALSE(meta["node"]["cpu_model"].get<std::string>().empty());
  EXPECT_TRUE(meta.contains("bandwidth"));
  auto lines = test::read_lines(run / "records.jsonl");
  ASSERT_EQ(lines.size(), 2u);  // one context group: 2 depths x 1 thread setting

  // As if the task died after its first point: the next start continues it.
  meta["status"] = "interrupted";
  std::ofstream(run / "meta.json") << meta.dump(2);
  std::ofstream(run / "records.jsonl") << lines[0] << "\n";
  r = test::run_shell("SLURM_ARRAY_TASK_ID=1 " + std::string(MOESWEEP_CLI) + shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("continuing shard 1/2"), std::string::npos) << r.err;
  EXPECT_EQ(test::only_run_dir(runs), run);
  EXPECT_EQ(test::read_lines(run / "records.jsonl").size(), 2u);
  EXPECT_EQ(read_json_file(run / "meta.json", "meta")["status"], "complete");

  r = test::run_shell("SLURM_ARRAY_TASK_ID=1 " + std::string(MOESWEEP_CLI) + shard);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("complete already"), std::string::npos) << r.err;
  EXPECT_EQ(test::only_run_dir(runs), run);
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A re-queued array task that lands on another node type: its earlier run of
// the shard (a real run, its meta.json node section doctored to another CPU)
// is not continued; a fresh run starts and the old directory stays as it was.
TEST(SweepShardRun, RequeueOnOtherHardwareStartsAFreshRunWithDoctoredNode) {
  test::tiny_twin();
  const auto dir = test::scratch_dir();
  const std::string plan = (dir / "P").string(), runs = (dir / "runs").string();
  ASSERT_EQ(test::run_cli("plan -m kimi-k2.5 --scale tiny -q Q4_K_S --ubatch-size 32 --threads 1 "
                          "--depths 0,64 -r 1 -n 4 -ctk q8_0 -ctv q8_0 -fa on --shards 1 --out " +
                          plan)
                .exit_code,
            0);
  const std::string shard = " sweep --quiet --no-db --out-dir " + runs + " --shard " + plan;
  auto r = test::run_shell("SLURM_ARRAY_TASK_ID=0 " + std::string(MOESWEEP_CLI) + shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto old_run = test::only_run_dir(runs);
  // As if it died after one point on a 16-core node of another CPU.
  nlohmann::json meta = read_json_file(old_run / "meta.json", "meta");
  meta["status"] = "interrupted";
  meta["node"]["cpu_model"] = "Doctored CPU 16-Core Processor";
  meta["node"]["logical_cpus"] = 16;
  std::ofstream(old_run / "meta.json") << meta.dump(2);
  const auto lines = test::read_lines(old_run / "records.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  std::ofstream(old_run / "records.jsonl") << lines[0] << "\n";
  const std::string old_meta = slurp(old_run / "meta.json"),
                    old_records = slurp(old_run / "records.jsonl");

  r = test::run_shell("SLURM_ARRAY_TASK_ID=0 " + std::string(MOESWEEP_CLI) + shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("measured on other hardware"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Doctored CPU 16-Core Processor"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[sweep] continuing"), std::string::npos) << r.err;
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : std::filesystem::directory_iterator(runs)) dirs.push_back(e.path());
  ASSERT_EQ(dirs.size(), 2u);
  const auto fresh = dirs[0] == old_run ? dirs[1] : dirs[0];
  EXPECT_EQ(test::read_lines(fresh / "records.jsonl").size(), 2u);
  EXPECT_EQ(read_json_file(fresh / "meta.json", "meta")["status"], "complete");
  EXPECT_EQ(slurp(old_run / "meta.json"), old_meta);
  EXPECT_EQ(slurp(old_run / "records.jsonl"), old_records);
}

}  // namespace
}  // namespace moesweep
