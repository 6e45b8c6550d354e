// `moesweep plan --shards`, `sweep --shard` (what needs no engine) and the
// text of the script `moesweep slurm` writes.
#include <gtest/gtest.h>

#include <fstream>

#include "cluster/slurm_script.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

const std::string kSweep =
    "--profile ci --ubatch-size 128,256,512 --threads 1,2 --depths 0,256 -r 1";

TEST(PlanCli, WritesOneFilePerShardAndRefusesToOverwrite) {
  const auto dir = test::scratch_dir() / "P";
  auto r = test::run_cli("plan " + kSweep + " --shards 3 --out " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json index = read_json_file(dir / "plan.json", "plan");
  EXPECT_EQ(index["shard_count"], 3);
  EXPECT_EQ(index["max_threads"], 2);
  EXPECT_EQ(index["name"], "ci");
  int points = 0;
  for (int i = 0; i < 3; ++i) {
    const nlohmann::json shard =
        read_json_file(dir / ("shard-" + std::to_string(i) + ".json"), "s");
    EXPECT_EQ(shard["plan_id"], index["plan_id"]);
    EXPECT_EQ(shard["shard_index"], i);
    EXPECT_EQ(shard["settings"]["name"], "ci") << "the name travels in the settings";
    points += static_cast<int>(shard["points"].size());
  }
  EXPECT_EQ(points, index["points"].get<int>());
  EXPECT_TRUE(std::filesystem::is_directory(dir / "logs"));
  r = test::run_cli("plan " + kSweep + " --shards 3 --out " + dir.string());
  EXPECT_EQ(r.exit_code, 2) << "an existing plan is not overwritten";
  r = test::run_cli("plan " + kSweep + " --shards 4 --out " + (dir.string() + "4"));
  EXPECT_EQ(r.exit_code, 2) << "3 context groups cannot make 4 shards";
  EXPECT_NE(r.err.find("never split"), std::string::npos) << r.err;
}

TEST(SweepShardCli, DryRunShowsOnlyTheShardAndAxisFlagsAreRefused) {
  const auto dir = test::scratch_dir() / "P";
  ASSERT_EQ(test::run_cli("plan " + kSweep + " --shards 3 --out " + dir.string()).exit_code, 0);
  const nlohmann::json shard = read_json_file(dir / "shard-1.json", "s");
  auto r = test::run_cli("sweep --dry-run --shard " + (dir / "shard-1.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(shard["points"].size()) + " points"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("shard 1/3 of plan"), std::string::npos) << r.out;
  r = test::run_cli("sweep --dry-run --threads 1 --shard " + (dir / "shard-1.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
  r = test::run_shell("env -u SLURM_ARRAY_TASK_ID " + std::string(MOESWEEP_CLI) +
                      " sweep --dry-run --shard " + dir.string());
  EXPECT_EQ(r.exit_code, 2) << "a plan directory needs SLURM_ARRAY_TASK_ID";
  r = test::run_shell("SLURM_ARRAY_TASK_ID=2 " + std::string(MOESWEEP_CLI) +
                      " sweep --dry-run --shard " + dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("shard 2/3"), std::string::npos) << r.out;
}

TEST(SlurmScript, ArrayExclusiveThreadsMergeJobAndNoBinding) {
  const PlanIndex index{"abc123", "my sweep", 4, 16};
  SlurmScriptOptions o;
  o.moesweep = "/opt/moe sweep/moesweep";
  o.partition = "zen5";
  o.constraint = "ddr5";
  const std::string s = slurm_script(index, "/scratch/P", o);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line :
       {"#SBATCH --array=\"0-3\"\n", "#SBATCH --exclusive\n", "#SBATCH --cpus-per-task=\"16\"\n",
        "#SBATCH --partition=\"zen5\"\n", "#SBATCH --constraint=\"ddr5\"\n",
        "#SBATCH --nodes=\"1\"\n", "#SBATCH --requeue\n",
        "#SBATCH --output=\"/scratch/P/logs/shard-%a.out\"\n",
        "#SBATCH --job-name=\"moesweep-my_sweep\"\n", "MOESWEEP='/opt/moe sweep/moesweep'\n",
        "PLAN=/scratch/P\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  EXPECT_NE(s.find("--dependency=afterany:\"$SLURM_ARRAY_JOB_ID\""), std::string::npos);
  EXPECT_NE(s.find("merge \"$RUNS\" --out \"$MERGED\""), std::string::npos);
  EXPECT_NE(s.find("srun --ntasks=1 --cpu-bind=none"), std::string::npos);
  EXPECT_NE(s.find("sweep --shard \"$PLAN\" --out-dir \"$RUNS\""), std::string::npos);
  // Every #SBATCH line comes before the first command (sbatch stops reading there).
  const size_t first_command = s.find("\nset -euo pipefail");
  EXPECT_EQ(s.find("#SBATCH", first_command), std::string::npos);
  EXPECT_EQ(s.find("#SBATCH --time"), std::string::npos) << "no --time unless asked";

  o.shared = true;
  EXPECT_EQ(slurm_script(index, "/scratch/P", o).find("#SBATCH --exclusive"), std::string::npos);
}

TEST(SlurmScript, CliReadsThePlanDirectory) {
  const auto dir = test::scratch_dir() / "P";
  ASSERT_EQ(test::run_cli("plan " + kSweep + " --shards 2 --out " + dir.string()).exit_code, 0);
  const auto r = test::run_cli("slurm " + dir.string() + " --time 01:00:00");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#SBATCH --array=\"0-1\"\n"), std::string::npos);
  EXPECT_NE(r.out.find("#SBATCH --cpus-per-task=\"2\"\n"), std::string::npos);
  EXPECT_NE(r.out.find("#SBATCH --time=\"01:00:00\"\n"), std::string::npos);
  EXPECT_EQ(test::run_cli("slurm " + (dir / "nope").string()).exit_code, 2);
  EXPECT_EQ(shell_quote("a b'c"), "'a b'\\''c'");
  EXPECT_EQ(shell_quote("/plain/path-1"), "/plain/path-1");
}

}  // namespace
}  // namespace moesweep
