// Real sweeps on the tiny twin under hostile state: a resume from another
// directory writes to the run's own database; a second sweep on a run being
// measured is refused with the first one's PID; two sweeps creating one new
// database at once both finish; a disk filling under the database mid-run
// stops the sweep with exit 2 and a resumable, documented status.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/run_records.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;
using test::CommandResult;
using test::spawn_cli;
using test::wait_exit_code;

const std::string kSmall =
    "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,64 -c 512 -ub 64 -n 2 -r 1 "
    "--counters none --quiet";
// Four points of ~40 repetitions each: seconds per point, time to act meanwhile.
const std::string kLong =
    "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,64,128,192 -c 512 -ub 64 -n 2 "
    "-r 40 --counters none --quiet";

using test::read_meta;

void write_meta(const std::filesystem::path& run, const nlohmann::json& meta) {
  std::ofstream(run / "meta.json") << meta.dump(2);
}

int64_t query_int(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr);
  const int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

int exec_sql(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr);
  const int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(h);
  return rc;
}

using test::slurp;

// Waits until the run under `out` has `records` records on disk; its directory.
std::filesystem::path wait_for_records(const std::filesystem::path& out, pid_t pid,
                                       size_t records) {
  const auto deadline = Clock::now() + std::chrono::seconds(180);
  while (Clock::now() < deadline) {
    std::error_code ec;
    if (std::filesystem::is_directory(out, ec))
      for (const auto& e : std::filesystem::directory_iterator(out, ec))
        if (std::filesystem::exists(e.path() / "meta.json") &&
            test::read_lines(e.path() / "records.jsonl").size() >= records)
          return e.path();
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ADD_FAILURE() << "the sweep ended early";
      return {};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "no run directory with " << records << " record(s) under " << out;
  return {};
}

TEST(HostileSweep, ResumeFromAnotherDirectoryWritesToTheRunsOwnDatabase) {
  const std::filesystem::path dir = test::scratch_dir();
  const std::filesystem::path db = dir / "store" / "results.sqlite";
  const CommandResult first = test::run_cli(kSmall + " --out-dir '" + (dir / "runs").string() +
                                            "' --db '" + db.string() + "'");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::filesystem::path run = test::only_run_dir(dir / "runs");
  nlohmann::json meta = read_meta(run);
  EXPECT_EQ(meta["database"], std::filesystem::absolute(db).string());
  // As if killed after the first point: the second is in neither store.
  const auto lines = test::read_lines(run / "records.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  std::ofstream(run / "records.jsonl") << lines[0] << "\n";
  meta["status"] = "interrupted";
  write_meta(run, meta);
  ASSERT_EQ(exec_sql(db, "PRAGMA foreign_keys = ON; DELETE FROM points WHERE n_kv = 64"),
            SQLITE_OK);
  ASSERT_EQ(query_int(db, "SELECT count(*) FROM points"), 1);

  // New flags would be ignored, another database would split the run: refused.
  for (const std::string& extra :
       {std::string("-t 2"), "--db '" + (dir / "other.db").string() + "'"}) {
    const CommandResult r = test::run_cli("sweep --resume '" + run.string() + "' " + extra);
    EXPECT_EQ(r.exit_code, 2) << extra << "\n" << r.err;
    EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
  }
  EXPECT_NE(test::run_cli("sweep --resume '" + run.string() + "' -t 2").err.find("-t,--threads"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "other.db"));

  // The printed command, typed in another directory: no --db, same database.
  const std::filesystem::path elsewhere = dir / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  const CommandResult resumed =
      test::run_shell("cd '" + elsewhere.string() + "' && " + MOESWEEP_CLI + " sweep --resume '" +
                      std::filesystem::absolute(run).string() + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM points"), 2);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM runs WHERE status = 'complete'"), 1);
  EXPECT_FALSE(std::filesystem::exists(elsewhere / "results")) << "a second database was made";
  EXPECT_EQ(test::read_lines(run / "records.jsonl").size(), 2u);
}

TEST(HostileSweep, ASecondSweepOnARunBeingMeasuredIsRefusedWithThePid) {
  const std::filesystem::path dir = test::scratch_dir();
  const pid_t pid = spawn_cli(kLong + " --no-db --out-dir '" + (dir / "runs").string() + "'",
                              dir / "first.out", dir / "first.err");
  ASSERT_GT(pid, 0);
  const std::filesystem::path run = wait_for_records(dir / "runs", pid, 0);
  ASSERT_FALSE(run.empty());
  const CommandResult second = test::run_cli("sweep --resume '" + run.string() + "' --quiet");
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("another moesweep (PID " + std::to_string(pid) + ") is running"),
            std::string::npos)
      << second.err;
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit_code(pid, std::chrono::seconds(60)), 130) << slurp(dir / "first.err");
  // Only the first sweep wrote: every point at most once.
  std::set<int> points;
  for (const std::string& line : test::read_lines(run / "records.jsonl"))
    EXPECT_TRUE(points.insert(nlohmann::json::parse(line)["point"].get<int>()).second) << line;
}

TEST(HostileSweep, TwoSweepsCreatingOneNewDatabaseAtOnceBothFinish) {
  const std::filesystem::path dir = test::scratch_dir();
  const std::filesystem::path db = dir / "new" / "results.sqlite";
  std::vector<pid_t> pids;
  for (const char* name : {"a", "b"})
    pids.push_back(spawn_cli(kSmall + " --name " + name + " --db '" + db.string() +
                                 "' --out-dir '" + (dir / "runs").string() + "'",
                             dir / (std::string(name) + ".out"),
                             dir / (std::string(name) + ".err")));
  EXPECT_EQ(wait_exit_code(pids[0], std::chrono::seconds(300)), 0) << slurp(dir / "a.err");
  EXPECT_EQ(wait_exit_code(pids[1], std::chrono::seconds(300)), 0) << slurp(dir / "b.err");
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM runs WHERE status = 'complete'"), 2);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM points"), 4);
}

TEST(HostileSweep, ADiskFillingUnderTheDatabaseStopsTheRunResumably) {
  const std::filesystem::path dir = test::scratch_dir();
  const std::filesystem::path small = dir / "small";
  std::filesystem::create_directories(small);
  if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=1m") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << strerror(errno);
  const pid_t pid = spawn_cli(kLong + " --db '" + (small / "results.sqlite").string() +
                                  "' --out-dir '" + (dir / "runs").string() + "'",
                              dir / "sweep.out", dir / "sweep.err");
  const std::filesystem::path run = wait_for_records(dir / "runs", pid, 1);
  {  // fill the disk: the next point's commit has nowhere to go
    std::ofstream filler(small / "filler", std::ios::binary);
    const std::string block(4096, 'x');
    while (filler.write(block.data(), block.size())) {
    }
  }
  const int code = wait_exit_code(pid, std::chrono::seconds(180));
  ::umount2(small.c_str(), MNT_DETACH);
  const std::string err = slurp(dir / "sweep.err");
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("is full"), std::string::npos) << err;
  EXPECT_NE(err.find("fix: "), std::string::npos) << err;
  ASSERT_FALSE(run.empty());
  EXPECT_NE(err.find("--resume " + run.string()), std::string::npos) << err;
  const nlohmann::json meta = read_meta(run);
  EXPECT_EQ(meta["status"], "failed");  // documented, and resumable once fixed
  EXPECT_NE(meta.value("error", "").find("is full"), std::string::npos) << meta.dump(2);
  for (const std::string& line : test::read_lines(run / "records.jsonl"))
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
}

}  // namespace
}  // namespace moesweep
