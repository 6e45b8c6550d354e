#include "serve/server_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <thread>

#include "serve/http_exchange.hpp"
#include "serve/serve_client.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

bool executable(const std::filesystem::path& p) {
  return !p.empty() && ::access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p);
}

std::filesystem::path own_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

// The registry's engine packages carry no llama-server, so it is compiled from
// the release's source the first time serve-bench needs one: with the source
// tree of this build at hand, that is scripts/setup --server (what it builds
// is where MOESWEEP_SERVER_FALLBACK points). False when that is not possible.
bool build_llama_server_here(const std::function<void(const std::string&)>& note) {
  const std::filesystem::path setup = std::filesystem::path(MOESWEEP_SOURCE_DIR) / "scripts/setup";
  if (!executable(setup) || std::getenv("MOESWEEP_NO_SERVER_BUILD")) return false;
  if (note)
    note(fmt::format(
        "llama-server is not built yet: building it now from the release's source ({} --server: "
        "the server and mtmd against the engine's libraries, several minutes on 2 cores, once; "
        "ccache makes a rebuild seconds)",
        setup.string()));
  std::fflush(stderr);
  const std::string command = fmt::format("'{}' --server >&2", setup.string());
  return std::system(command.c_str()) == 0;
}

}  // namespace

std::filesystem::path find_llama_server(const std::string& flag_value,
                                        const std::function<void(const std::string&)>& note) {
  std::vector<std::filesystem::path> tried;
  auto consider = [&](const std::filesystem::path& p) {
    if (p.empty()) return false;
    tried.push_back(p);
    return executable(p);
  };
  if (!flag_value.empty()) {
    if (consider(flag_value)) return flag_value;
    throw UserError(fmt::format("--server-bin '{}' is not an executable file", flag_value),
                    "the path of a llama-server binary",
                    "build it with scripts/setup (build/bin/llama-server) or fix the path");
  }
  if (const char* env = std::getenv("MOESWEEP_LLAMA_SERVER"); env && *env)
    if (consider(env)) return env;
  if (consider(own_dir() / "llama-server")) return own_dir() / "llama-server";
  if (consider(MOESWEEP_SERVER_FALLBACK)) return MOESWEEP_SERVER_FALLBACK;
  if (build_llama_server_here(note) && executable(MOESWEEP_SERVER_FALLBACK))
    return MOESWEEP_SERVER_FALLBACK;
  std::string list;
  for (const auto& p : tried) list += (list.empty() ? "" : ", ") + p.string();
  throw UserError(fmt::format("no llama-server found (looked at: {})", list),
                  "the engine's llama-server, built from the same tree as moesweep",
                  "run scripts/setup --server (it builds llama-server), or pass --server-bin "
                  "PATH or set MOESWEEP_LLAMA_SERVER; --url benchmarks a running server instead");
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok) {
    throw UserError(fmt::format("cannot get a free loopback port: {}", std::strerror(errno)),
                    "a machine where 127.0.0.1 accepts a listening socket",
                    "check the loopback interface (ip link show lo)");
  }
  return ntohs(a.sin_port);
}

void check_passthrough_args(const std::vector<std::string>& args) {
  static const char* const kOurs[] = {"-m",        "--model", "--port",    "--host",
                                      "--api-key", "-hf",     "--metrics", "--log-file"};
  for (const std::string& a : args)
    for (const char* o : kOurs)
      if (a == o || a.rfind(std::string(o) + "=", 0) == 0) {
        throw UserError(fmt::format("'{}' after -- is set by serve-bench itself", a),
                        "llama-server flags other than -m, --port, --host, --metrics, --log-file",
                        "drop it: serve-bench picks the model (--gguf or the twin), a free "
                        "loopback port, enables /metrics and keeps the log in the run directory");
      }
}

void ServerProcess::start(const std::filesystem::path& binary, const std::vector<std::string>& args,
                          const std::filesystem::path& log) {
  log_ = log;
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw UserError(
        fmt::format("cannot write the server log '{}': {}", log.string(), std::strerror(errno)),
        "a writable run directory", "choose another --out directory");
  }
  std::vector<std::string> argv_s = {binary.string()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  started_ = std::chrono::steady_clock::now();
  pid_ = ::fork();
  if (pid_ == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);       // moesweep gone (even SIGKILL): the server goes too
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    ::setpgid(0, 0);  // the terminal's Ctrl-C reaches moesweep, which stops the server in order
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::execv(argv[0], argv.data());
    const char msg[] = "moesweep: exec of llama-server failed\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(log_fd);
  if (pid_ < 0) {
    pid_ = -1;
    throw UserError(fmt::format("cannot start llama-server: {}", std::strerror(errno)),
                    "a process slot for the server", "check ulimit -u and free memory");
  }
}

void ServerProcess::note_exit(int status) {
  exit_text_ = WIFEXITED(status) ? fmt::format("exit {}", WEXITSTATUS(status))
                                 : fmt::format("signal {}", WTERMSIG(status));
  pid_ = -1;
}

bool ServerProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) note_exit(status);
  return pid_ > 0;
}

double ServerProcess::wait_ready(int port, std::chrono::seconds limit, bool (*interrupted)()) {
  const ServerAddress addr{"127.0.0.1", port};
  const HttpLimits health{1u << 20, std::chrono::seconds(2), interrupted};
  const auto deadline = started_ + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (interrupted && interrupted()) throw UserError("interrupted", "", "", 130);
    if (!running()) {
      throw UserError(
          fmt::format("llama-server ended ({}) before it was ready; its log's last lines:\n{}",
                      exit_text_, log_tail(12)),
          "a server that loads the model and answers GET /health",
          fmt::format("read the whole log ({}): a model it cannot load, a port in use or a "
                      "flag it does not know are the usual reasons",
                      log_.string()));
    }
    if (const HttpAnswer res = http_exchange(addr, {"GET", "/health", "", {}}, health);
        res.stopped.empty() && res.status == 200)
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string tail = log_tail(12);
  stop();
  throw UserError(fmt::format("llama-server was not ready within {} s; its log's last lines:\n{}",
                              limit.count(), tail),
                  "GET /health answering 200 once the model is loaded",
                  "raise --ready-timeout for a large model, or read the log: " + log_.string());
}

void ServerProcess::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    note_exit(status);
  }
}

std::string ServerProcess::log_tail(int lines) const {
  std::ifstream in(log_);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back("  | " + line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += l + "\n";
  return out.empty() ? "  | (empty)\n" : out;
}

}  // namespace moesweep
