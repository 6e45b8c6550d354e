// The engine in its own process: a worker killed by a signal, or hung, in the
// middle of a point fails that point only. The record says how it died, the
// worker is restarted with the model reloaded, the sweep goes on, --resume
// measures the failed point again, and no worker outlives moesweep (kill -9,
// Ctrl-C). The worker is a real engine process found by its parent's pid.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

// Eight points of ~30 repetitions: seconds each on the tiny twin, time to act
// in the middle of one.
const std::string kArgs =
    "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,64,128,192 -c 512 -ub 64 -n 4 "
    "-r 30 --counters none --no-db";

// The engine worker(s) whose parent is `pid` (/proc/*/stat: comm and ppid).
std::vector<pid_t> workers_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    if (stat.substr(open + 1, close - open - 1) != "moesweep-worker") continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

std::filesystem::path run_dir_of(const std::filesystem::path& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec))
    for (const auto& e : std::filesystem::directory_iterator(out, ec))
      if (std::filesystem::exists(e.path() / "records.jsonl")) return e.path();
  return {};
}

std::vector<nlohmann::json> records_of(const std::filesystem::path& run) {
  std::vector<nlohmann::json> out;
  for (const std::string& line : test::read_lines(run / "records.jsonl"))
    out.push_back(nlohmann::json::parse(line));
  return out;
}

// A sweep started in the background, with its worker found once `n_records`
// are on disk (so the worker is in the middle of a later point).
struct RunningSweep {
  std::filesystem::path dir = test::scratch_dir();
  pid_t cli = -1;
  pid_t worker = -1;
  std::filesystem::path run;

  explicit RunningSweep(const std::string& extra = "") {
    test::tiny_twin();  // built before the clock starts
    cli = test::spawn_cli(kArgs + " " + extra + " --out-dir '" + (dir / "runs").string() + "'",
                          dir / "stdout", dir / "stderr");
  }
  ~RunningSweep() {
    if (cli > 0 && ::kill(cli, 0) == 0) ::kill(cli, SIGKILL);
    if (worker > 0 && test::process_alive(worker)) ::kill(worker, SIGKILL);
  }
  // True once `n_records` records exist and a worker is found.
  bool wait_for(size_t n_records) {
    const auto deadline = Clock::now() + std::chrono::seconds(240);
    while (Clock::now() < deadline) {
      run = run_dir_of(dir / "runs");
      if (!run.empty() && test::read_lines(run / "records.jsonl").size() >= n_records) {
        const std::vector<pid_t> w = workers_of(cli);
        if (w.size() == 1) {
          worker = w.front();
          return true;
        }
      }
      if (::waitpid(cli, nullptr, WNOHANG) == cli) {
        cli = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  int finish() {
    const int code = test::wait_exit_code(cli, std::chrono::seconds(300));
    cli = -1;
    return code;
  }
  std::string err() const {
    std::ifstream in(dir / "stderr");
    return {std::istreambuf_iterator<char>(in), {}};
  }
};

// Every record: exactly one failed with `how`, the others measured.
void expect_one_failed_point(const std::vector<nlohmann::json>& records, const std::string& how) {
  int failed = 0, ok = 0;
  for (const auto& r : records) {
    if (r.value("ok", true)) {
      ++ok;
      continue;
    }
    ++failed;
    const nlohmann::json& f = r["extra"]["engine_failure"];
    EXPECT_NE(f.value("how", std::string()).find(how), std::string::npos) << r.dump();
    EXPECT_NE(r.value("error", std::string()).find("engine worker"), std::string::npos) << r.dump();
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(ok + failed, 4);
}

TEST(WorkerCrash, KilledMidPointFailsThatPointAndTheSweepGoesOn) {
  RunningSweep sweep;
  ASSERT_TRUE(sweep.wait_for(1)) << sweep.err();
  const pid_t first_worker = sweep.worker;
  ASSERT_EQ(::kill(first_worker, SIGKILL), 0);
  EXPECT_EQ(sweep.finish(), 3) << sweep.err();  // 3: finished, some points failed
  const auto records = records_of(sweep.run);
  expect_one_failed_point(records, "SIGKILL");
  EXPECT_NE(sweep.err().find("restarting it"), std::string::npos) << sweep.err();
  // The failed point is measured again by --resume, the others are kept.
  const test::CommandResult resumed =
      test::run_cli("sweep --resume '" + sweep.run.string() + "' --quiet");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  int ok = 0;
  for (const auto& r : records_of(sweep.run)) ok += r.value("ok", true);
  EXPECT_EQ(ok, 4);
}

TEST(WorkerCrash, HungWorkerIsKilledAtThePointTimeoutAndTheSweepGoesOn) {
  RunningSweep sweep("--point-timeout 3");
  ASSERT_TRUE(sweep.wait_for(1)) << sweep.err();
  ASSERT_EQ(::kill(sweep.worker, SIGSTOP), 0);  // a real process that stops answering
  EXPECT_EQ(sweep.finish(), 3) << sweep.err();
  expect_one_failed_point(records_of(sweep.run), "hung");
  EXPECT_FALSE(test::process_alive(sweep.worker)) << "the hung worker was left behind";
}

TEST(WorkerCrash, WorkerDiesWithMoesweepOnKill9) {
  RunningSweep sweep;
  ASSERT_TRUE(sweep.wait_for(1)) << sweep.err();
  ASSERT_EQ(::kill(sweep.cli, SIGKILL), 0);  // no handler runs: only PR_SET_PDEATHSIG can act
  EXPECT_EQ(sweep.finish(), 128 + SIGKILL);
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (test::process_alive(sweep.worker) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(test::process_alive(sweep.worker)) << "the worker outlived moesweep";
}

TEST(WorkerCrash, CtrlCEndsTheSweepAndItsWorker) {
  RunningSweep sweep;
  ASSERT_TRUE(sweep.wait_for(1)) << sweep.err();
  ASSERT_EQ(::kill(sweep.cli, SIGINT), 0);
  EXPECT_EQ(sweep.finish(), 130) << sweep.err();
  EXPECT_FALSE(test::process_alive(sweep.worker)) << "the worker outlived the interrupted sweep";
}

}  // namespace
}  // namespace moesweep
