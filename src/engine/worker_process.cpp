#include "engine/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "engine/engine_types.hpp"
#include "engine/worker_launcher.hpp"
#include "engine/worker_protocol.hpp"
#include "util/error.hpp"
#include "util/process_tree.hpp"
#include "util/stop_signal.hpp"

namespace moesweep {
namespace {

constexpr size_t kLogTailLines = 40;
constexpr int kPollSliceMs = 100;    // how often a waiting call looks at the stop flag
constexpr double kStopGraceS = 0.5;  // a call that ends this soon after Ctrl-C still answers
using Clock = std::chrono::steady_clock;

double now_s() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// The worker's environment: ours with its process-tree mark, plus no gdb
// backtrace on an engine abort (ggml attaches gdb when it finds one: seconds
// of delay and pages of output for a record that only needs the assert line).
std::vector<std::string> worker_environment(const std::string& mark) {
  std::vector<std::string> env = environment_with_mark(mark);
  bool has_backtrace_setting = false;
  for (const std::string& e : env)
    if (e.rfind("GGML_NO_BACKTRACE=", 0) == 0) has_backtrace_setting = true;
  if (!has_backtrace_setting) env.emplace_back("GGML_NO_BACKTRACE=1");
  return env;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The child's side between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(char* const argv[], char* const envp[], int in_fd, int out_fd,
                             int err_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  ::setpgid(0, 0);                          // a terminal's Ctrl-C is moesweep's to handle
  ::dup2(in_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(err_fd, 2);
  ::signal(SIGPIPE, SIG_DFL);
  ::signal(SIGINT, SIG_DFL);
  ::execve(argv[0], argv, envp);
  const char msg[] = "moesweep-worker: exec failed\n";
  (void)!::write(2, msg, sizeof msg - 1);
  ::_exit(127);
}

}  // namespace

std::string describe_exit(int st) {
  if (WIFSIGNALED(st)) {
    const int sig = WTERMSIG(st);
    const char* abbrev = sigabbrev_np(sig);
    std::string name = abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
    if (sig == SIGKILL) name += " (killed: out of memory, or by another process)";
    if (sig == SIGABRT) name += " (abort: an engine assert or GGML_ABORT)";
    return name;
  }
  if (WIFEXITED(st)) return fmt::format("exit {}", WEXITSTATUS(st));
  return "ended";
}

// One call's limits: its deadline (0: none) and when the stop flag was first seen.
struct WorkerProcess::Wait {
  std::string during;  // the request's op
  CallDeadline limit;
  double deadline = 0;
  double stop_seen = 0;
};

WorkerProcess::WorkerProcess(const std::filesystem::path& binary, const std::atomic<bool>* stop)
    : stop_flag_(stop ? stop : &StopOnSignal::process_flag()), tree_mark_(new_process_tree_mark()) {
  static const bool ignore_sigpipe = [] {
    ::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is an error to report, not our death
    return true;
  }();
  (void)ignore_sigpipe;
  if (::access(binary.c_str(), X_OK) != 0)
    throw UserError(
        fmt::format("the engine worker '{}' is missing or not executable", binary.string()),
        "a moesweep-worker binary: beside moesweep for its own engine, in the registry's "
        "folder for a registered one",
        "this moesweep's own worker: run scripts/setup (or point MOESWEEP_WORKER at one); a "
        "registered engine's: register it again (moesweep engine add NAME ...)");
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC))
    throw EngineError(
        fmt::format("cannot create pipes for the engine worker: {}", strerror(errno)));
  std::vector<std::string> env = worker_environment(tree_mark_);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  // The worker, or a launcher's argv with the worker last (worker_launcher.hpp).
  std::vector<std::string> args = worker_launcher();
  args.push_back(binary.string());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) exec_child(argv.data(), envp.data(), in[0], out[1], err[1], parent);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (pid_ < 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    throw EngineError(fmt::format("cannot start the engine worker: {}", strerror(errno)));
  }
  ::setpgid(pid_, pid_);  // also here: no race with a signal sent right after fork
  ::fcntl(in[1], F_SETFL, ::fcntl(in[1], F_GETFL) | O_NONBLOCK);  // writes wait in poll()
  to_worker_ = in[1];
  from_worker_ = out[0];
  log_fd_ = err[0];
  log_thread_ = std::thread([this] { pump_log(); });
}

WorkerProcess::~WorkerProcess() {
  stop();
}

void WorkerProcess::stop() {
  if (pid_ <= 0) {
    reap_and_join(false);
    return;
  }
  close_fd(to_worker_);           // end of requests: the worker leaves its loop and exits
  for (int i = 0; i < 40; ++i) {  // up to 2 s for a clean exit (the model is unmapped)
    if (::waitpid(pid_, &exit_status_, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    ::usleep(50 * 1000);
  }
  reap_and_join(pid_ > 0);
}

void WorkerProcess::reap_and_join(bool kill_first) {
  if (pid_ > 0) {
    if (kill_first) end_process_tree({pid_}, tree_mark_);  // and all it started
    while (::waitpid(pid_, &exit_status_, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  end_process_tree({}, tree_mark_);  // what it left running when it ended by itself
  close_fd(to_worker_);
  close_fd(from_worker_);
  log_stop_ = true;
  if (log_thread_.joinable()) log_thread_.join();
  close_fd(log_fd_);
}

void WorkerProcess::pump_log() {
  static const bool echo = std::getenv("MOESWEEP_WORKER_QUIET") == nullptr;
  char buf[4096];
  for (;;) {
    pollfd p{log_fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, 100);
    if (r == 0) {
      if (log_stop_) return;  // reaped, and nothing more came within 100 ms
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    const ssize_t n = r < 0 ? -1 : ::read(log_fd_, buf, sizeof buf);
    if (n <= 0) return;  // every writer closed it
    if (echo) (void)!::write(2, buf, static_cast<size_t>(n));
    std::lock_guard<std::mutex> lock(log_mutex_);
    log_partial_.append(buf, static_cast<size_t>(n));
    for (size_t nl; (nl = log_partial_.find('\n')) != std::string::npos;) {
      log_tail_.push_back(log_partial_.substr(0, nl));
      log_partial_.erase(0, nl + 1);
      if (log_tail_.size() > kLogTailLines) log_tail_.pop_front();
    }
    if (log_partial_.size() > 4096) log_partial_.erase(0, log_partial_.size() - 4096);
  }
}

std::vector<std::string> WorkerProcess::log_tail() const {
  std::lock_guard<std::mutex> lock(log_mutex_);
  std::vector<std::string> out(log_tail_.begin(), log_tail_.end());
  if (!log_partial_.empty()) out.push_back(log_partial_);
  return out;
}

void WorkerProcess::fail(const std::string& during, const std::string& problem, bool hung) {
  // Dead: only reaped. Alive but hung or garbled: killed. A closed pipe
  // usually means it is dying: it gets half a second to finish.
  bool dead = false;
  for (int i = 0; pid_ > 0 && i <= (hung ? 0 : 10); ++i) {
    if (i > 0) ::usleep(50 * 1000);
    dead = ::waitpid(pid_, &exit_status_, WNOHANG) == pid_;
    if (dead) pid_ = -1;
    if (dead) break;
  }
  reap_and_join(!dead);
  const std::string how = dead ? describe_exit(exit_status_) : hung ? "hung" : "killed";
  throw EngineCrash(fmt::format("the engine worker {} during {}: {}", dead ? "died" : "was stopped",
                                during, dead ? how : problem),
                    how, log_tail());
}

void WorkerProcess::interrupted(const std::string& during) {
  reap_and_join(true);
  throw WorkerInterrupted(during);
}

// Returns once `fd` is ready for `events`; ends the call (EngineCrash or
// WorkerInterrupted) at its deadline, or half a second after the stop flag.
void WorkerProcess::wait_for(int fd, short events, Wait& w) {
  const bool writing = events & POLLOUT;
  for (;;) {
    const double now = now_s();
    if (w.stop_seen == 0 && stop_flag_->load()) w.stop_seen = now;
    if (w.stop_seen > 0 && now - w.stop_seen >= kStopGraceS) interrupted(w.during);
    if (w.deadline > 0 && now >= w.deadline)
      fail(w.during,
           writing ? fmt::format("it stopped reading its requests: nothing could be written "
                                 "within {:g} s ({})",
                                 w.limit.seconds, w.limit.name)
                   : fmt::format("no answer within {:g} s ({})", w.limit.seconds, w.limit.name),
           true);
    double slice = kPollSliceMs / 1e3;
    if (w.deadline > 0) slice = std::min(slice, w.deadline - now);
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(slice * 1000) + 1);
    if (r > 0) return;  // ready, or an error/hang-up the read or write reports
    if (r < 0 && errno != EINTR) fail(w.during, fmt::format("poll: {}", strerror(errno)), false);
  }
}

void WorkerProcess::write_line(const std::string& line, Wait& w) {
  for (size_t off = 0; off < line.size();) {
    const ssize_t n = ::write(to_worker_, line.data() + off, line.size() - off);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      wait_for(to_worker_, POLLOUT, w);  // the pipe is full: the worker is not reading
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    fail(w.during, "its pipe closed", false);
  }
}

std::string WorkerProcess::read_line(Wait& w) {
  char buf[65536];
  for (;;) {
    if (const size_t nl = pending_.find('\n'); nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    if (pending_.size() > worker_protocol::kMaxLineBytes)
      fail(w.during, "it sent a line longer than the protocol allows", false);
    wait_for(from_worker_, POLLIN, w);
    const ssize_t n = ::read(from_worker_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(w.during, "its pipe closed", false);
    pending_.append(buf, static_cast<size_t>(n));
  }
}

nlohmann::json WorkerProcess::request(const nlohmann::json& req, const CallDeadline& deadline,
                                      const EventSink& events) {
  Wait w{worker_protocol::op_of(req), deadline, 0, 0};
  if (pid_ <= 0) throw EngineCrash("the engine worker is not running", "stopped", log_tail());
  if (deadline.seconds > 0) w.deadline = now_s() + deadline.seconds;
  write_line(req.dump() + "\n", w);
  for (;;) {
    nlohmann::json msg;
    try {
      msg = worker_protocol::parse_line(read_line(w), "the engine worker's answer");
    } catch (const worker_protocol::ProtocolError& e) {
      fail(w.during, e.what(), false);
    }
    if (!worker_protocol::is_event(msg)) return msg;
    if (events) {
      try {
        events(msg);
      } catch (const worker_protocol::ProtocolError& e) {
        fail(w.during, e.what(), false);
      }
    }
  }
}

}  // namespace moesweep
