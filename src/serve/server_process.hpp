#pragma once
// A llama-server child process that can never outlive moesweep: started with
// an argv (no shell) on a free loopback port, its stdout and stderr in a log
// file, PR_SET_PDEATHSIG so the kernel kills it if moesweep dies, and stopped
// (SIGTERM, then SIGKILL, then waitpid) by the destructor on every path.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace moesweep {

// llama-server: --server-bin, else $MOESWEEP_LLAMA_SERVER, else next to this
// binary, else the engine build this binary was linked against, else built
// now from the engine's source (`note` says so first: it takes minutes).
// UserError when none exists.
std::filesystem::path find_llama_server(const std::string& flag_value,
                                        const std::function<void(const std::string&)>& note = {});

// A loopback port nobody listens on right now (the kernel's pick).
int free_loopback_port();

// Flags moesweep sets itself and refuses in the pass-through list.
void check_passthrough_args(const std::vector<std::string>& args);

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess() { stop(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Forks and execs `binary` with `args` (argv[1..]); output to `log`.
  void start(const std::filesystem::path& binary, const std::vector<std::string>& args,
             const std::filesystem::path& log);
  // Polls GET /health on 127.0.0.1:port until 200, the process exits, `limit`
  // passes or `interrupted()` says stop. UserError (with the log's last lines)
  // unless ready; returns seconds from start to ready.
  double wait_ready(int port, std::chrono::seconds limit, bool (*interrupted)());
  // SIGTERM, up to 10 s, then SIGKILL; always reaped. Idempotent.
  void stop();
  bool running();  // false once it has exited (reaps it)
  pid_t pid() const { return pid_; }
  std::string exit_text() const { return exit_text_; }  // "exit 1", "signal 9"
  const std::filesystem::path& log() const { return log_; }
  std::string log_tail(int lines) const;

 private:
  pid_t pid_ = -1;
  std::filesystem::path log_;
  std::string exit_text_;
  std::chrono::steady_clock::time_point started_;
  void note_exit(int status);
};

}  // namespace moesweep
