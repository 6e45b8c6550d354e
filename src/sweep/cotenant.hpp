#pragma once
// The co-tenant axis (issue 23): a load that runs on the CPUs a point leaves
// free while its timed phases run, so the threads table shows the sweet spot
// of a machine that does other work too (seed 000: "the remaining 3 cores run
// Dagster, Trino and network I/O"). Kinds: `stream` (the bandwidth probe's
// read kernel, looping: a memory-bandwidth hog), `compute` (a register-only
// spin: takes cores, not bandwidth) and `cmd:"..."` (the user's own load, run
// by /bin/sh). The load is a child process, `moesweep __cotenant`, pinned to
// its CPUs; it dies with moesweep on every way out (stop(), the destructor,
// and PR_SET_PDEATHSIG when moesweep itself is killed), and so does every
// process the load starts (util/process_tree.hpp): the co-tenant child ends
// its whole tree, a setsid() grandchild of a user's command included, and
// moesweep ends what is left by the tree's mark. A user's command writes to
// moesweep's stderr, never to the co-tenant's own line protocol.
#include <sys/types.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "results/record.hpp"  // cotenant_label

namespace moesweep {

// The kinds a point can ask for; "" is none.
inline constexpr const char* kCotenantStream = "stream";
inline constexpr const char* kCotenantCompute = "compute";
inline constexpr const char* kCotenantCmdPrefix = "cmd:";

// "none,stream,compute,cmd:\"stress-ng --cpu 1\"" -> {"", "stream",
// "compute", "cmd:stress-ng --cpu 1"}. Commas inside double quotes belong to
// the command. UserError naming `flag` for an unknown kind or an empty command.
std::vector<std::string> parse_cotenant_list(const std::string& text, const std::string& flag);

// The CPUs of a mask ("0x0c", "2-3"); empty when there is none or it does
// not parse (a point that is not pinned runs on all CPUs).
std::vector<int> cpus_of_mask_text(const std::string& mask);

// The CPUs a point's co-tenant runs on: `cotenant_cpus` (--cotenant-cpus)
// when given, else the CPUs this process may use minus the point's mask.
// Empty (with `why`) when there are none: the mask covers every CPU, or the
// point is not pinned (no mask) and no --cotenant-cpus was given.
std::vector<int> cotenant_cpus_for(const std::string& point_mask, const std::string& cotenant_cpus,
                                   std::string* why);

// This executable (/proc/self/exe): the co-tenant is `<it> __cotenant ...`.
std::filesystem::path self_executable();

// One running co-tenant. Construction returns once the load runs (its
// buffers touched, its threads pinned), or throws WorkerInterrupted when the
// user's stop (Ctrl-C, SIGTERM) comes first: touching 4x a big L3 takes
// seconds, and a stop is never held for them. stop() ends it and returns its own
// throughput: {"kind", "cpus", "pid", "seconds", "throughput", "unit",
// "cpu_s"} (throughput {"unavailable": why} for a user command).
class CotenantProcess {
 public:
  // `stop`: the run's stop flag (nullptr: the process's, util/stop_signal.hpp).
  CotenantProcess(const std::string& kind, const std::vector<int>& cpus,
                  const std::filesystem::path& executable = self_executable(),
                  const std::atomic<bool>* stop = nullptr);
  ~CotenantProcess();  // stops a running load (SIGTERM, then SIGKILL), never throws
  CotenantProcess(const CotenantProcess&) = delete;
  CotenantProcess& operator=(const CotenantProcess&) = delete;

  pid_t pid() const { return pid_; }
  nlohmann::json stop();

 private:
  // "" on EOF, on timeout, or (with `stop`) once the stop flag is set.
  std::string read_line(double timeout_s, const std::atomic<bool>* stop = nullptr);
  std::string not_ready(const std::string& first_line);
  void end_child();  // SIGTERM, a grace period, its tree killed; reaped

  std::string kind_;
  std::vector<int> cpus_;
  std::string tree_mark_;  // util/process_tree.hpp
  pid_t pid_ = -1;
  int out_fd_ = -1;  // the child's stdout
  std::string pending_;
  double cpu_s_ = 0;  // the child's user + system time once reaped
};

}  // namespace moesweep
