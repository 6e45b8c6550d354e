// Running an external benchmark tool (engine/exec_tool.hpp): its own process
// group, stdout and stderr read together through one pipe with a byte cap, a
// deadline, and Ctrl-C (the sweep's stop flag) noticed within 0.1 s.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
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

extern char** environ;

namespace moesweep {
namespace {

constexpr size_t kMaxOutputBytes = 64u << 20;

struct Finished {
  std::string output;
  int status = 0;
  std::string cut;  // why it was ended early ("" = it exited by itself)
};

pid_t spawn(const std::vector<std::string>& argv, int out_fd, int in_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 2);
  posix_spawn_file_actions_addclose(&actions, in_fd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group: killed as a whole
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw EngineError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(rc)));
  return pid;
}

// Reads the pipe until the tool closes it; ends the tool's group on the
// deadline, on `stop` or past the byte cap.
Finished collect(pid_t pid, int fd, double timeout_s, const std::atomic<bool>& stop) {
  Finished f;
  const auto start = std::chrono::steady_clock::now();
  char buf[65536];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 100);
    if (ready > 0) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n == 0) break;
      if (n > 0) f.output.append(buf, static_cast<size_t>(n));
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stop.load()) f.cut = "stopped by the user";
    if (timeout_s > 0 && elapsed > timeout_s)
      f.cut = fmt::format("no end within {:g} s", timeout_s);
    if (f.output.size() > kMaxOutputBytes) f.cut = "it wrote more than 64 MiB";
    if (!f.cut.empty()) {
      kill(-pid, SIGKILL);
      break;
    }
  }
  while (waitpid(pid, &f.status, 0) < 0 && errno == EINTR) {
  }
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
  pid_t pid = -1;
  try {
    pid = spawn(argv, fds[1], fds[0]);
  } catch (...) {
    close(fds[0]), close(fds[1]);
    throw;
  }
  close(fds[1]);
  Finished f = collect(pid, fds[0], timeout_s, stop);
  close(fds[0]);
  return f;
}

}  // namespace

std::vector<ExecRow> run_exec(const ExecRequest& request, double timeout_s,
                              const std::atomic<bool>& stop) {
  const std::vector<std::string> argv = exec_argv(request);
  const Finished f = run_tool(argv, timeout_s, stop);
  if (f.cut == "stopped by the user") return {};
  const std::string tool = exec_tool_name(request.tool);
  if (!f.cut.empty() || !WIFEXITED(f.status) || WEXITSTATUS(f.status) != 0)
    throw EngineError(fmt::format("{} ended ({}): {}", tool,
                                  f.cut.empty() ? how_it_ended(f.status) : f.cut,
                                  last_lines(f.output, 3)));
  std::vector<ExecRow> rows = parse_exec_output(request.tool, f.output, tool + "'s output");
  if (rows.empty())
    throw EngineError(fmt::format("{} wrote no result rows (is it the tool it is named after?): {}",
                                  tool, last_lines(f.output, 3)));
  return rows;
}

ExecVersion exec_version(const std::filesystem::path& exe) {
  std::atomic<bool> never{false};
  const Finished f = run_tool({exe.string(), "--version"}, 30, never);
  // llama.cpp's common: "version: 4012 (8337e4cd)"; "unknown" when built outside git.
  static const std::regex version(R"(version: (\d+) \(([0-9a-f]{6,40})\))");
  const std::string head = f.output.substr(0, 4096);  // what --version says fits in a line
  std::smatch m;
  if (f.cut.empty() && std::regex_search(head, m, version)) return {m[1], m[2]};
  return {};
}

}  // namespace moesweep
