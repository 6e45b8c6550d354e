#pragma once
// One engine worker process seen from moesweep: started with pipes for the
// protocol (its stdin and stdout) and for its log (stderr, forwarded to ours
// and kept as a tail for the record of a crash). It dies with us
// (PR_SET_PDEATHSIG), sits in its own process group so a terminal's Ctrl-C
// reaches only moesweep (which ends the sweep after the current sample), and
// is stopped on every way out of its owner.
#include <sys/types.h>

#include <atomic>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace moesweep {

class WorkerProcess {
 public:
  using EventSink = std::function<void(const nlohmann::json& event)>;

  // Throws EngineError when the binary cannot be started.
  explicit WorkerProcess(const std::filesystem::path& binary);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends one request and returns its reply; the event lines that come first
  // go to `events`. timeout_s <= 0: no deadline. A worker that dies, breaks
  // the protocol or misses the deadline is killed and reaped, and the call
  // throws EngineCrash saying how it ended, with the tail of its log.
  nlohmann::json request(const nlohmann::json& req, double timeout_s, const EventSink& events = {});

  pid_t pid() const { return pid_; }
  bool alive() const { return pid_ > 0; }
  std::vector<std::string> log_tail() const;

 private:
  [[noreturn]] void fail(const std::string& during, const std::string& problem, bool hung);
  std::string read_line(double deadline_s, const std::string& during);
  void stop();  // closes stdin, waits a moment, then kills the process group
  void reap_and_join(bool kill_first);
  void pump_log();  // the stderr thread

  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1, log_fd_ = -1;
  std::string pending_;  // bytes read past the last line
  std::thread log_thread_;
  std::atomic<bool> log_stop_{false};
  mutable std::mutex log_mutex_;
  std::deque<std::string> log_tail_;
  std::string log_partial_;
  int exit_status_ = 0;  // waitpid's, once reaped
};

// "SIGABRT", "SIGKILL (killed: out of memory, or by hand)", "exit 3", ...
std::string describe_exit(int wait_status);

}  // namespace moesweep
