#include "sweep/cotenant_load.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "hw/bandwidth_probe.hpp"
#include "hw/topology.hpp"
#include "util/error.hpp"
#include "util/process_tree.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop(int) {
  g_stop = 1;
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

void say(const std::string& line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void wait_for_stop() {
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// The bandwidth probe's read kernel on every CPU, pass after pass.
int stream_load(const std::vector<int>& cpus) {
  const int n = static_cast<int>(cpus.size());
  PinnedReaders readers(cpus, default_bytes_per_thread(probe_topology(), n));
  install_stop_handlers();  // only now: until here SIGTERM ends us at once (see run_cotenant_load)
  say("ready");
  const auto t0 = Clock::now();
  uint64_t passes = 0;
  while (!g_stop) {
    readers.run_pass(n);
    ++passes;
  }
  const double s = since(t0);
  const double bytes = static_cast<double>(passes) * readers.bytes_per_thread() * n;
  say(nlohmann::json{
      {"kind", "stream"}, {"seconds", s}, {"throughput", bytes / s / 1e9}, {"unit", "GB/s"}}
          .dump());
  return 0;
}

// A dependent chain of 64-bit multiply-adds in a register: a core's worth of
// work that reads no memory.
uint64_t spin(const std::atomic<bool>& stop) {
  constexpr uint64_t kBatch = 1 << 20;
  uint64_t x = 0x9e3779b97f4a7c15ULL, ops = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    for (uint64_t i = 0; i < kBatch; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      asm volatile("" : "+r"(x));  // kept in a register, never optimised away
    }
    ops += kBatch;
  }
  return ops;
}

int compute_load(const std::vector<int>& cpus) {
  std::atomic<bool> stop{false};
  std::vector<uint64_t> ops(cpus.size(), 0);
  std::vector<std::thread> workers;
  for (size_t i = 0; i < cpus.size(); ++i)
    workers.emplace_back([&, i] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpus[i], &set);
      sched_setaffinity(0, sizeof(set), &set);  // 0: this thread
      ops[i] = spin(stop);
    });
  install_stop_handlers();
  say("ready");
  const auto t0 = Clock::now();
  wait_for_stop();
  stop.store(true);
  for (auto& w : workers) w.join();
  const double s = since(t0);
  double total = 0;
  for (uint64_t o : ops) total += static_cast<double>(o);
  say(nlohmann::json{
      {"kind", "compute"}, {"seconds", s}, {"throughput", total / s / 1e9}, {"unit", "Gop/s"}}
          .dump());
  return 0;
}

// The user's command in a process group of its own, ended as a group, then
// every process of its tree: this process is their subreaper, so a setsid()
// grandchild whose parent left is still ours to find (util/process_tree.hpp).
// Its output goes to stderr: our stdout is the line protocol moesweep reads.
int command_load(const std::string& command) {
  adopt_orphans();
  const pid_t sh = fork();
  if (sh == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (sh < 0) throw UserError("co-tenant: fork failed", "a process slot", "retry");
  setpgid(sh, sh);  // either side may win the race; both ask for the same
  say("ready");
  const auto t0 = Clock::now();
  int status = 0;
  bool exited = false;
  while (!g_stop && !(exited = waitpid(sh, &status, WNOHANG) == sh))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double s = since(t0);
  if (!exited) {
    kill(-sh, SIGTERM);
    for (int i = 0; i < 200 && !(exited = waitpid(sh, &status, WNOHANG) == sh); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(-sh, SIGKILL);  // whatever of the group is left
    if (!exited) waitpid(sh, &status, 0);
  }
  const char* mark = std::getenv(kProcessTreeVariable);
  end_process_tree({getpid()}, mark ? mark : "");  // every descendant, setsid() ones too
  nlohmann::json out = {
      {"kind", "cmd"},
      {"seconds", s},
      {"throughput", {{"unavailable", "a user command reports no throughput (see cpu_s)"}}}};
  if (!g_stop) out["ended_early"] = fmt::format("the command ended by itself after {:.1f} s", s);
  say(out.dump());
  return 0;
}

}  // namespace

// A stream or compute load keeps SIGTERM's default action until it says
// "ready": touching 4x the L3 of a guest whose CPUID claims 512 MiB takes
// seconds, and a stop (or moesweep's death, PR_SET_PDEATHSIG) in that window
// must end it at once, not after the touch; it has nothing to report yet. A
// user's command catches it from the start: its tree must always be ended.
int run_cotenant_load(const CotenantLoad& load) {
  if (load.kind == "cmd") {
    install_stop_handlers();
    return command_load(load.command);
  }
  if (load.cpus.empty())
    throw UserError("__cotenant: no CPUs", "--cpus LIST", "moesweep starts this itself");
  if (load.kind == "stream") return stream_load(load.cpus);
  if (load.kind == "compute") return compute_load(load.cpus);
  throw UserError(fmt::format("__cotenant: unknown kind '{}'", load.kind), "stream, compute or cmd",
                  "moesweep starts this itself");
}

}  // namespace moesweep
