// Running an external benchmark tool (engine/exec_tool.hpp): its own process
// group and process-tree mark (util/process_tree.hpp), dying with moesweep
// (PR_SET_PDEATHSIG), stdout and stderr read together through one pipe with a
// byte cap, a deadline for the whole run (its exit included: a tool that
// closes its output and stays is ended too), and Ctrl-C (the sweep's stop
// flag) noticed within 0.1 s. Its whole tree is ended on every way out.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <regex>
#include <sstream>

#include "engine/engine_types.hpp"
#include "engine/exec_tool.hpp"
#include "util/error.hpp"
#include "util/process_tree.hpp"
#include "util/stop_signal.hpp"

namespace moesweep {
namespace {

constexpr size_t kMaxOutputBytes = 64u << 20;
constexpr int kSliceMs = 100;

struct Finished {
  std::string output;
  int status = 0;
  std::string cut;  // why it was ended early ("" = it exited by itself)
  double wall_s = 0;
};

// The child's side between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(char* const argv[], char* const envp[], int out_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // moesweep killed: the tool goes too
  if (::getppid() != parent) ::_exit(127);
  ::setpgid(0, 0);  // its own group: a terminal's Ctrl-C is moesweep's to handle
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(out_fd, 2);
  ::signal(SIGPIPE, SIG_DFL);  // moesweep ignores it; the tool need not
  ::signal(SIGINT, SIG_DFL);
  ::execve(argv[0], argv, envp);
  const char msg[] = "moesweep: the tool could not be executed\n";
  (void)!::write(2, msg, sizeof msg - 1);
  ::_exit(127);
}

pid_t spawn(const std::vector<std::string>& argv, int out_fd, const std::string& mark) {
  if (::access(argv[0].c_str(), X_OK) != 0)
    throw EngineError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(errno)));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env = environment_with_mark(mark);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(args.data(), envp.data(), out_fd, parent);
  if (pid < 0) throw EngineError(fmt::format("cannot start '{}': {}", argv[0], strerror(errno)));
  ::setpgid(pid, pid);  // also here: no race with a kill right after fork
  return pid;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What is left in the pipe once the tool exited (a process it started may
// hold the pipe open: no end-of-file is waited for).
void drain(int fd, std::string& output) {
  char buf[65536];
  for (pollfd p{fd, POLLIN, 0}; output.size() <= kMaxOutputBytes && poll(&p, 1, 0) > 0;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return;
    output.append(buf, static_cast<size_t>(n));
  }
}

// Reads the pipe until the tool exits; ends the tool's tree on the deadline,
// on `stop`, past the byte cap, and when it has exited (what it started).
Finished collect(pid_t pid, int fd, const std::string& mark, double timeout_s,
                 const std::atomic<bool>& stop) {
  Finished f;
  const auto start = std::chrono::steady_clock::now();
  char buf[65536];
  bool output_closed = false, reaped = false;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (!output_closed && poll(&p, 1, kSliceMs) > 0) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n == 0) output_closed = true;
      if (n > 0) f.output.append(buf, static_cast<size_t>(n));
    } else if (output_closed) {
      poll(nullptr, 0, 10);  // waiting for the exit only
    }
    if (waitpid(pid, &f.status, WNOHANG) == pid) {
      reaped = true;
      drain(fd, f.output);
      break;
    }
    const double elapsed = seconds_since(start);
    if (stop.load()) f.cut = "stopped by the user";
    if (timeout_s > 0 && elapsed > timeout_s)
      f.cut = output_closed
                  ? fmt::format("it closed its output but did not end within {:g} s", timeout_s)
                  : fmt::format("no end within {:g} s", timeout_s);
    if (f.output.size() > kMaxOutputBytes) f.cut = "it wrote more than 64 MiB";
    if (!f.cut.empty()) {
      end_process_tree({pid}, mark);
      break;
    }
  }
  f.wall_s = seconds_since(start);
  while (!reaped && waitpid(pid, &f.status, 0) < 0 && errno == EINTR) {
  }
  end_process_tree({}, mark);  // what it left running (a daemon it started)
  return f;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) return fmt::format("signal {}", strsignal(WTERMSIG(status)));
  return fmt::format("exit {}", WEXITSTATUS(status));
}

std::string last_lines(const std::string& output, size_t count) {
  std::deque<std::string> tail;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    tail.push_back(line.substr(0, 300));
    if (tail.size() > count) tail.pop_front();
  }
  return fmt::format("{}", fmt::join(tail, " | "));
}

Finished run_tool(const std::vector<std::string>& argv, double timeout_s,
                  const std::atomic<bool>& stop) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw EngineError(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
  const std::string mark = new_process_tree_mark();
  pid_t pid = -1;
  try {
    pid = spawn(argv, fds[1], mark);
  } catch (...) {
    close(fds[0]), close(fds[1]);
    throw;
  }
  close(fds[1]);
  Finished f = collect(pid, fds[0], mark, timeout_s, stop);
  close(fds[0]);
  return f;
}

}  // namespace

ExecRun run_exec(const ExecRequest& request, double timeout_s, const std::atomic<bool>& stop) {
  const std::vector<std::string> argv = exec_argv(request);
  const Finished f = run_tool(argv, timeout_s, stop);
  if (f.cut == "stopped by the user") return {};
  const std::string tool = exec_tool_name(request.tool);
  if (!f.cut.empty() || !WIFEXITED(f.status) || WEXITSTATUS(f.status) != 0)
    throw EngineError(fmt::format("{} ended ({}): {}", tool,
                                  f.cut.empty() ? how_it_ended(f.status) : f.cut,
                                  last_lines(f.output, 3)));
  ExecRun run{parse_exec_output(request.tool, f.output, tool + "'s output"), f.wall_s};
  if (run.rows.empty())
    throw EngineError(fmt::format("{} wrote no result rows (is it the tool it is named after?): {}",
                                  tool, last_lines(f.output, 3)));
  return run;
}

ExecVersion exec_version(const std::filesystem::path& exe, double timeout_s) {
  const Finished f = run_tool({exe.string(), "--version"}, timeout_s, StopOnSignal::process_flag());
  // llama.cpp's common: "version: 4012 (8337e4cd)"; "unknown" when built outside git.
  static const std::regex version(R"(version: (\d+) \(([0-9a-f]{6,40})\))");
  const std::string head = f.output.substr(0, 4096);  // what --version says fits in a line
  std::smatch m;
  if (f.cut.empty() && std::regex_search(head, m, version)) return {m[1], m[2]};
  return {};
}

}  // namespace moesweep
