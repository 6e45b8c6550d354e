// A sweep killed mid-write leaves half a line in records.jsonl (issue 20,
// defect 3). --resume, and a re-queued --shard task that continues its own
// run, cut that line away (kept in records.jsonl.torn) before appending: the
// point is measured again and every line stands whole, where the next record
// used to be glued onto the torn one and lost.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "results/run_meta.hpp"
#include "results/run_source.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

const std::string kSweep =
    "-m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,64,128 -c 512 -ub 64 -n 2 -r 1 "
    "--counters none --quiet";
const std::string kTorn = "{\"n_kv_max\":512,\"n_bat";

using test::slurp;

// As a kill during the last point's write leaves the run: that record cut in
// half, meta.json still "running".
size_t tear_last_record(const fs::path& run) {
  std::vector<std::string> lines = test::read_lines(run / "records.jsonl");
  const size_t planned = lines.size();
  lines.pop_back();
  std::ofstream out(run / "records.jsonl", std::ios::trunc);
  for (const std::string& l : lines) out << l << "\n";
  out << kTorn;
  out.close();
  nlohmann::json meta = read_json_file(run / "meta.json", "test");
  meta["status"] = "running";
  std::ofstream(run / "meta.json") << meta.dump(2);
  return planned;
}

void expect_whole_again(const fs::path& run, size_t planned, const std::string& err) {
  const RecordsFile f = read_records_file(run / "records.jsonl");
  EXPECT_FALSE(f.torn) << "a torn line is left";
  EXPECT_EQ(f.records.size(), planned) << "the torn point was not measured again\n" << err;
  for (const Record& r : f.records) EXPECT_TRUE(r.ok) << r.error;
  EXPECT_NE(slurp(run / "records.jsonl.torn").find(kTorn), std::string::npos);
  EXPECT_EQ(read_run_meta(run).status, RunStatus::kComplete);
  EXPECT_NE(err.find("cut off a torn last line"), std::string::npos) << err;
}

TEST(TornLine, ResumeCutsItAwayAndMeasuresThePointAgain) {
  const fs::path out = test::scratch_dir() / "runs";
  auto r = test::run_cli("sweep " + kSweep + " --no-db --out-dir '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path run = test::only_run_dir(out);
  const size_t planned = tear_last_record(run);
  r = test::run_cli("sweep --resume '" + run.string() + "' --no-db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_whole_again(run, planned, r.err);
}

TEST(TornLine, ARequeuedShardCutsItAwayInTheRunItContinues) {
  const fs::path dir = test::scratch_dir();
  ASSERT_EQ(test::run_cli("plan " + kSweep + " --shards 1 --out '" + (dir / "P").string() + "'")
                .exit_code,
            0);
  const std::string shard = "sweep --shard '" + (dir / "P" / "shard-0.json").string() +
                            "' --no-db --quiet --out-dir '" + (dir / "runs").string() + "'";
  auto r = test::run_cli(shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path run = test::only_run_dir(dir / "runs");
  const size_t planned = tear_last_record(run);
  r = test::run_cli(shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("continuing shard 0/1"), std::string::npos) << r.err;
  EXPECT_EQ(test::only_run_dir(dir / "runs"), run) << "a second run was started";
  expect_whole_again(run, planned, r.err);
}

}  // namespace
}  // namespace moesweep
