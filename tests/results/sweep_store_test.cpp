// The store under a real `moesweep sweep` process on the tiny twin: what the
// sweep writes reads back, a SIGKILL mid-run leaves a database that opens and
// holds every finished point, and --resume completes the run without
// measuring the finished points again.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

bool sweep_available() {
  return test::run_cli("sweep --help").exit_code == 0;
}

// The sweep axes every test here uses: 2 threads x 5 depths = 10 points, each
// depth one PP of 64 tokens past the last (no untimed fill), so the run takes
// seconds, not the minutes of a 512-token PP at depths to 1024.
const std::string kSweep =
    "sweep --model kimi-k2.5 --scale tiny --quant Q4_K_S -t 1,2 --depths 0,64,128,192,256 "
    "-p 64 -n 8 -c 1024 -r 3 --quiet";
constexpr int kPoints = 10;

std::filesystem::path only_run_dir(const std::filesystem::path& out_dir) {
  for (const auto& e : std::filesystem::directory_iterator(out_dir)) {
    if (e.is_directory()) return e.path();
  }
  return {};
}

int64_t points_in(const std::filesystem::path& db) {
  if (!std::filesystem::exists(db)) return 0;
  sqlite3* h = nullptr;
  int64_t n = 0;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM points", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}

std::map<std::string, std::string> record_json_by_key(SqliteStore& store, const std::string& id) {
  std::map<std::string, std::string> out;
  for (const Record& r : store.load_records(id)) {
    out[r.params.key_string()] = record_to_json(r).dump();
  }
  return out;
}

TEST(SweepStore, SweepRecordsReadBackFromTheDatabase) {
  if (!sweep_available()) GTEST_SKIP() << "moesweep sweep is not built yet";
  const auto dir = test::scratch_dir();
  const auto db = dir / "sweep.sqlite";
  const auto r = test::run_cli(kSweep + " --name dbread --out-dir '" + (dir / "runs").string() +
                               "' --db '" + db.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run_dir = only_run_dir(dir / "runs");
  const auto from_jsonl = read_records_jsonl(run_dir / "records.jsonl");
  SqliteStore store(db, SqliteStore::Mode::kReadOnly);
  const auto info = store.find_run(run_dir.string());
  ASSERT_TRUE(info) << "run not found by its directory";
  EXPECT_EQ(info->status, "complete");
  EXPECT_EQ(info->n_points, kPoints);
  const auto from_db = store.load_records(info->run_id);
  ASSERT_EQ(from_db.size(), from_jsonl.size());
  for (size_t i = 0; i < from_db.size(); ++i) {
    EXPECT_EQ(from_db[i].params.key_string(), from_jsonl[i].params.key_string());
    EXPECT_EQ(from_db[i].tg.tokens_per_s, from_jsonl[i].tg.tokens_per_s);
  }
}

TEST(SweepStore, SigkillMidRunKeepsEveryFinishedPointAndResumeCompletes) {
  if (!sweep_available()) GTEST_SKIP() << "moesweep sweep is not built yet";
  const auto dir = test::scratch_dir();
  const auto db = dir / "killed.sqlite";
  const auto out_dir = dir / "runs";
  // Started in the background so this test can kill it; the shell prints its pid.
  const auto started =
      test::run_shell("nohup " + std::string(MOESWEEP_CLI) + " " + kSweep +
                      " --name killed --out-dir '" + out_dir.string() + "' --db '" + db.string() +
                      "' >'" + (dir / "sweep.log").string() + "' 2>&1 & echo $!");
  const pid_t pid = static_cast<pid_t>(std::stol(started.out));
  // Wait (no timing assertion: the limit only keeps a broken sweep from hanging CI).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (points_in(db) < 3 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(::kill(pid, SIGKILL), 0) << "the sweep ended before it could be killed";
  for (int i = 0; i < 200 && ::kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the kernel reaps it
  }

  const auto run_dir = only_run_dir(out_dir);
  std::map<std::string, std::string> before;
  std::string run_id;
  {
    SqliteStore store(db, SqliteStore::Mode::kReadWrite);  // opens: WAL recovered
    const auto info = store.find_run(run_dir.string());
    ASSERT_TRUE(info);
    run_id = info->run_id;
    EXPECT_EQ(info->status, "running") << "a killed sweep never ended the run";
    ASSERT_GE(info->n_points, 3);
    ASSERT_LT(info->n_points, kPoints) << "killed too late to be mid-run";
    before = record_json_by_key(store, run_id);
    for (const Record& r : store.load_records(run_id)) {
      EXPECT_EQ(r.pp.tokens_per_s.size(), 3u) << "a committed point has all its samples";
      EXPECT_EQ(r.tg.tokens_per_s.size(), 3u);
    }
    // Every point in records.jsonl is in the database, give or take the one
    // point in flight between the two sinks when the kill came.
    const auto jsonl = read_records_jsonl(run_dir / "records.jsonl");
    int missing = 0;
    for (const Record& r : jsonl) missing += before.count(r.params.key_string()) == 0;
    EXPECT_LE(missing, 1);
    EXPECT_LE(std::abs(static_cast<int>(jsonl.size()) - static_cast<int>(before.size())), 1);
  }

  const auto resumed =
      test::run_cli("sweep --resume '" + run_dir.string() + "' --db '" + db.string() + "' --quiet");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  SqliteStore store(db, SqliteStore::Mode::kReadOnly);
  const auto info = store.find_run(run_id);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->status, "complete");
  EXPECT_EQ(info->n_points, kPoints);
  const auto after = record_json_by_key(store, run_id);
  for (const auto& [key, json] : before) {
    ASSERT_TRUE(after.count(key)) << key;
    EXPECT_EQ(after.at(key), json) << "a finished point was measured again: " << key;
  }
}

}  // namespace
}  // namespace moesweep
