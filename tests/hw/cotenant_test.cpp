// The co-tenant (sweep/cotenant.hpp) as a real child process of the real
// moesweep binary: its kinds and CPUs, its own throughput, and that it is
// gone, by PID, on every way out: stop(), the destructor while an exception
// unwinds, moesweep's Ctrl-C, and moesweep killed outright.
#include "sweep/cotenant.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/engine_types.hpp"
#include "hw/topology.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using namespace std::chrono_literals;

bool alive(pid_t pid) {
  // A zombie still answers kill(0): read its state instead.
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] != 'Z';
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (alive(pid)) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// The last CPU this process may use: the co-tenant's in these tests.
int last_cpu() {
  return process_affinity().back();
}

// Children of `parent` whose command line holds `word`.
std::vector<pid_t> children_with(pid_t parent, const std::string& word) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat"), cmd(e.path() / "cmdline");
    std::string line, args;
    std::getline(stat, line);
    std::getline(cmd, args, '\1');
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && args.find(word) != std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

TEST(Cotenant, KindsParseWithQuotedCommandsAndUnknownOnesAreRefused) {
  EXPECT_EQ(parse_cotenant_list("none,stream,compute", "--cotenant"),
            (std::vector<std::string>{"", "stream", "compute"}));
  EXPECT_EQ(parse_cotenant_list("none, cmd:\"stress-ng --cpu 1, --timeout 9\"", "--cotenant"),
            (std::vector<std::string>{"", "cmd:stress-ng --cpu 1, --timeout 9"}));
  EXPECT_EQ(cotenant_label("cmd:make -j2"), "cmd");
  EXPECT_EQ(cotenant_label(""), "none");
  for (const char* bad : {"steam", "cmd:", "cmd:\"\"", ""}) {
    try {
      parse_cotenant_list(bad, "--cotenant");
      FAIL() << bad;
    } catch (const UserError& e) {
      EXPECT_NE(e.expected().find("stream"), std::string::npos);
    }
  }
}

TEST(Cotenant, CpusAreTheMasksComplementOrTheFlagsAndNeverNone) {
  const std::vector<int> all = process_affinity();
  std::string why;
  if (all.size() >= 2) {
    const std::vector<int> free = cotenant_cpus_for(std::to_string(all[0]), "", &why);
    EXPECT_EQ(free, std::vector<int>(all.begin() + 1, all.end()));
  }
  EXPECT_EQ(cotenant_cpus_for("0", "1,3", &why), (std::vector<int>{1, 3}));
  EXPECT_TRUE(cotenant_cpus_for("", "", &why).empty());
  EXPECT_NE(why.find("not pinned"), std::string::npos) << why;
  EXPECT_TRUE(cotenant_cpus_for(cpu_list_text(all), "", &why).empty());
  EXPECT_NE(why.find("leaves no CPU free"), std::string::npos) << why;
}

// The CPU time (user + system) `pid` has used so far, from /proc; -1 once gone.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15: utime, stime
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Stopped once it has done a second of work after "ready" (its own CPU time,
// not a wall-clock sleep: on a loaded machine that second takes longer, and a
// pass of the stream load, 4x the L3 at most 1.5 GB, at >= 2 GB/s fits in it),
// each load reports a real throughput, and its wall time covers its CPU time
// (one CPU: it cannot have used more CPU than time passed).
TEST(Cotenant, StreamAndComputeReportTheirThroughputAndAreGoneAfterStop) {
  for (const char* kind : {"stream", "compute"}) {
    CotenantProcess load(kind, {last_cpu()}, MOESWEEP_CLI);
    const pid_t pid = load.pid();
    ASSERT_TRUE(alive(pid)) << kind;
    const double at_ready = cpu_seconds(pid);
    // the same difference as `worked` below (at_ready + 1.0 rounds otherwise:
    // it once stopped at a `worked` of 0.99999...)
    for (int i = 0; i < 60000 && cpu_seconds(pid) - at_ready < 1.0; ++i)
      std::this_thread::sleep_for(10ms);
    const double worked = cpu_seconds(pid) - at_ready;
    const nlohmann::json j = load.stop();
    EXPECT_FALSE(alive(pid)) << kind;
    EXPECT_GE(worked, 1.0) << kind << ": the co-tenant got no CPU in 10 minutes";
    EXPECT_EQ(j["kind"], kind);
    EXPECT_EQ(j["cpus"], std::to_string(last_cpu()));
    ASSERT_TRUE(j["throughput"].is_number()) << j.dump();
    EXPECT_GT(j["throughput"].get<double>(), 0) << j.dump();
    EXPECT_EQ(j["unit"], std::string(kind) == "stream" ? "GB/s" : "Gop/s");
    EXPECT_GE(j["cpu_s"].get<double>(), at_ready + worked - 0.02) << j.dump();
    EXPECT_GE(j["seconds"].get<double>(), worked - 0.05) << j.dump();
  }
}

TEST(Cotenant, AUserCommandEndsAsAGroupAndHasNoThroughput) {
  const auto pid_file = test::scratch_dir() / "sleep.pid";
  CotenantProcess load("cmd:echo $$ > " + pid_file.string() + "; exec sleep 300", {last_cpu()},
                       MOESWEEP_CLI);
  pid_t sleeper = 0;
  for (int i = 0; i < 200 && !sleeper; ++i) {
    std::this_thread::sleep_for(10ms);
    std::ifstream(pid_file) >> sleeper;
  }
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(alive(sleeper));
  const nlohmann::json j = load.stop();
  EXPECT_TRUE(gone_within(sleeper, 2000ms)) << "the user's command outlived its co-tenant";
  EXPECT_EQ(j["kind"], "cmd");
  EXPECT_TRUE(j["throughput"].contains("unavailable")) << j.dump();
}

TEST(Cotenant, DestructorEndsTheLoadWhenAnErrorUnwinds) {
  pid_t pid = 0;
  try {
    CotenantProcess load("compute", {last_cpu()}, MOESWEEP_CLI);
    pid = load.pid();
    throw std::runtime_error("a point failed");
  } catch (const std::runtime_error&) {
  }
  ASSERT_GT(pid, 0);
  EXPECT_FALSE(alive(pid));
}

TEST(Cotenant, AnExecutableWithoutTheLoadIsAClearError) {
  // A bystander: a load that ended by itself is reaped already, and ending it
  // must never signal pid -1 (every process of the user) in its place.
  const pid_t bystander = ::fork();
  if (bystander == 0) {
    ::execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(bystander, 0);
  try {
    CotenantProcess load("stream", {last_cpu()}, "/bin/false");
    ADD_FAILURE() << "started";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("did not start"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("it ended (exit 1) before it was ready"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(alive(bystander)) << "ending the co-tenant signalled an unrelated process";
  ::kill(bystander, SIGKILL);
  ::waitpid(bystander, nullptr, 0);
}

// A load slow to say "ready" (a guest whose CPUID claims a 512 MiB L3 has it
// touch 2 GiB first: seconds) never holds a stop: the run's flag ends the wait
// at once, the load is ended, and the start throws WorkerInterrupted (exit
// 130), not a failure of the point. The stand-in load here never gets ready.
TEST(Cotenant, AStopWhileTheLoadStartsEndsTheWaitAndTheLoad) {
  const auto dir = test::scratch_dir();
  const auto never_ready = dir / "never-ready";
  std::ofstream(never_ready) << "#!/bin/sh\nexec sleep 300\n";
  std::filesystem::permissions(never_ready, std::filesystem::perms::owner_all);
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(300ms);
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  try {
    CotenantProcess load("stream", {last_cpu()}, never_ready, &stop);
    ADD_FAILURE() << "started";
  } catch (const WorkerInterrupted& e) {
    EXPECT_NE(std::string(e.what()).find("co-tenant 'stream' was starting"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.exit_code(), exit_code::kInterrupted);
  }
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s) << "the stop waited for the load";
}

// The pid a command wrote to `file` (0 when it has not within 2 s).
pid_t pid_from(const std::filesystem::path& file) {
  pid_t pid = 0;
  for (int i = 0; i < 200 && !pid; ++i) {
    std::this_thread::sleep_for(10ms);
    std::ifstream(file) >> pid;
  }
  return pid;
}

TEST(Cotenant, ASetsidGrandchildOfTheCommandEndsWithIt) {  // issue 35, D13
  const auto dir = test::scratch_dir();
  for (const bool moesweep_killed : {false, true}) {
    const auto pid_file = dir / (moesweep_killed ? "killed.pid" : "stopped.pid");
    CotenantProcess load(
        "cmd:setsid sh -c 'echo $$ > " + pid_file.string() + "; exec sleep 300' & exec sleep 300",
        {last_cpu()}, MOESWEEP_CLI);
    const pid_t grandchild = pid_from(pid_file);
    ASSERT_GT(grandchild, 0);
    // moesweep killed outright: its co-tenant gets SIGTERM (PR_SET_PDEATHSIG)
    // and ends its own tree; stopped: the same, then moesweep's check.
    if (moesweep_killed) {
      ::kill(load.pid(), SIGTERM);
      EXPECT_TRUE(gone_within(grandchild, 3000ms));
    }
    load.stop();
    EXPECT_TRUE(gone_within(grandchild, 3000ms)) << "the setsid() grandchild survived";
  }
}

TEST(Cotenant, ACommandsOwnOutputIsNeverReadAsTheLoadsAnswer) {  // issue 35, D19
  CotenantProcess load(R"(cmd:echo '{"throughput": 5, "unit": "GB/s"}'; exec sleep 300)",
                       {last_cpu()}, MOESWEEP_CLI);
  const nlohmann::json j = load.stop();
  EXPECT_TRUE(j["throughput"].contains("unavailable")) << j.dump();
}

// A sweep with a co-tenant, ended by Ctrl-C and by SIGKILL: the co-tenant
// (found as the sweep's child) is gone either way.
void sweep_with_cotenant_ends_by(int signal_number) {
  test::tiny_twin();
  const auto dir = test::scratch_dir();
  const pid_t sweep = test::spawn_cli(
      "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 -C 0 --cotenant stream --cotenant-cpus " +
          std::to_string(last_cpu()) +
          " --depths 0 -c 256 -ub 64 -n 64 -r 200 --counters none --no-db --quiet --out-dir " +
          (dir / "runs").string(),
      dir / "out", dir / "err");
  std::vector<pid_t> cotenants;
  for (int i = 0; i < 600 && cotenants.empty(); ++i) {
    std::this_thread::sleep_for(100ms);
    cotenants = children_with(sweep, "__cotenant");
  }
  ASSERT_EQ(cotenants.size(), 1u) << "no co-tenant appeared";
  ASSERT_EQ(kill(sweep, signal_number), 0);
  const int code = test::wait_exit_code(sweep, std::chrono::seconds(60));
  EXPECT_EQ(code, signal_number == SIGINT ? 130 : 128 + SIGKILL);
  EXPECT_TRUE(gone_within(cotenants[0], 3000ms)) << "co-tenant " << cotenants[0] << " survived";
}

TEST(Cotenant, DiesWhenTheSweepIsInterrupted) {
  sweep_with_cotenant_ends_by(SIGINT);
}

TEST(Cotenant, DiesWhenTheSweepIsKilled) {
  sweep_with_cotenant_ends_by(SIGKILL);
}

}  // namespace
}  // namespace moesweep
