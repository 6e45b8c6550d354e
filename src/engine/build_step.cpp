#include "engine/build_step.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include "util/error.hpp"
#include "util/stop_signal.hpp"

extern char** environ;

namespace moesweep {
namespace fs = std::filesystem;

namespace {

// How long a stopped step's process group gets between SIGTERM and SIGKILL.
constexpr auto kStopGrace = std::chrono::seconds(10);

pid_t spawn_logged(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // A process group of its own: a stop ends the step's whole tree (cmake,
  // ninja, the compilers), and a terminal's Ctrl-C reaches moesweep only.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw UserError(fmt::format("engine add: cannot start '{}': {}", argv[0], std::strerror(rc)),
                    fmt::format("{} on PATH", argv[0]),
                    "install it (scripts/setup installs cmake, ninja and npm)");
  return pid;
}

}  // namespace

// Runs argv with stdout and stderr appended to `log`. On SIGINT/SIGTERM
// (util/stop_signal.hpp) its process group gets SIGTERM, then SIGKILL after
// kStopGrace or at a second signal; what is left of the group is killed
// before the leader is reaped (its pid still names the group then).
StepEnd run_step_logged(const std::vector<std::string>& argv, const fs::path& log) {
  const pid_t pid = spawn_logged(argv, log);
  StepEnd end;
  std::optional<std::chrono::steady_clock::time_point> termed;
  bool killed = false;
  for (;;) {
    siginfo_t info{};
    const int rc = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid) break;
    if (rc < 0 && errno != EINTR) break;
    if (StopOnSignal::requested()) {
      const auto now = std::chrono::steady_clock::now();
      if (!termed) {
        kill(-pid, SIGTERM);
        termed = now;
      } else if (!killed && (StopOnSignal::count() > 1 || now - *termed > kStopGrace)) {
        kill(-pid, SIGKILL);
        killed = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  end.stopped = termed.has_value();
  if (end.stopped) kill(-pid, SIGKILL);  // compilers that outlived their ninja
  while (waitpid(pid, &end.status, 0) < 0 && errno == EINTR) {
  }
  return end;
}

}  // namespace moesweep
