#pragma once
// One engine worker process seen from moesweep: started with pipes for the
// protocol (its stdin and stdout) and for its log (stderr, forwarded to ours
// and kept as a tail for the record of a crash). It dies with us
// (PR_SET_PDEATHSIG), sits in its own process group so a terminal's Ctrl-C
// reaches only moesweep, carries a process-tree mark (util/process_tree.hpp)
// so whatever it starts ends with it, and is stopped on every way out of its
// owner.
//
// Every call has a deadline, for writing the request (the pipe is
// non-blocking: a worker that stops reading cannot block us) and for the
// answer; and the stop flag (Ctrl-C, SIGTERM) is looked at every 0.1 s while
// waiting: a call still waiting half a second after it is set is ended
// (WorkerInterrupted), so a hung engine never holds a stopping sweep.
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

// How long one call may take, and the name of that limit in messages
// ("--point-timeout", "the hello deadline"). seconds <= 0: none (only the
// user's --point-timeout 0 asks for that).
struct CallDeadline {
  double seconds = 0;
  std::string name = "--point-timeout";
};

class WorkerProcess {
 public:
  using EventSink = std::function<void(const nlohmann::json& event)>;

  // Throws EngineError when the binary cannot be started. `stop` (null: the
  // process's Ctrl-C flag, StopOnSignal) is looked at while a call waits.
  explicit WorkerProcess(const std::filesystem::path& binary,
                         const std::atomic<bool>* stop = nullptr);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends one request and returns its reply; the event lines that come first
  // go to `events`. A worker that dies, breaks the protocol or misses the
  // deadline is killed and reaped, and the call throws EngineCrash saying how
  // it ended, with the tail of its log; one that the stop flag ends throws
  // WorkerInterrupted.
  nlohmann::json request(const nlohmann::json& req, const CallDeadline& deadline,
                         const EventSink& events = {});

  pid_t pid() const { return pid_; }
  bool alive() const { return pid_ > 0; }
  std::vector<std::string> log_tail() const;

 private:
  struct Wait;  // one call's deadline and stop (worker_process.cpp)
  [[noreturn]] void fail(const std::string& during, const std::string& problem, bool hung);
  [[noreturn]] void interrupted(const std::string& during);
  void wait_for(int fd, short events, Wait& wait);
  void write_line(const std::string& line, Wait& wait);
  std::string read_line(Wait& wait);
  void stop();  // closes stdin, waits a moment, then kills its process tree
  void reap_and_join(bool kill_first);
  void pump_log();  // the stderr thread

  const std::atomic<bool>* stop_flag_;
  std::string tree_mark_;  // util/process_tree.hpp
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
