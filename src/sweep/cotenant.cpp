#include "sweep/cotenant.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "engine/engine_types.hpp"
#include "engine/engine_util.hpp"
#include "hw/topology.hpp"
#include "util/error.hpp"
#include "util/process_tree.hpp"
#include "util/stop_signal.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kReadyTimeoutS = 60;   // buffers of a big machine take a while to touch
constexpr double kResultTimeoutS = 10;  // the load's last line after SIGTERM
constexpr double kGraceS = 3;           // SIGTERM to SIGKILL
constexpr size_t kMaxLineBytes =
    65536;  // the child's lines are short; more is no co-tenant of ours

// Items split on commas outside double quotes.
std::vector<std::string> split_outside_quotes(const std::string& text) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : text) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

std::string cotenant_item(const std::string& raw, const std::string& flag) {
  const std::string item = trimmed(raw);
  if (item == "none") return "";
  if (item == kCotenantStream || item == kCotenantCompute) return item;
  if (item.rfind(kCotenantCmdPrefix, 0) == 0) {
    std::string command = trimmed(item.substr(std::strlen(kCotenantCmdPrefix)));
    if (command.size() >= 2 && command.front() == '"' && command.back() == '"')
      command = command.substr(1, command.size() - 2);
    if (!trimmed(command).empty()) return kCotenantCmdPrefix + command;
  }
  throw UserError(fmt::format("{}: '{}' is no co-tenant", flag, item),
                  "none, stream, compute or cmd:\"COMMAND\" (comma-separated)",
                  "e.g. --cotenant none,stream or --cotenant 'none,cmd:\"stress-ng --cpu 1\"'");
}

// The child: async-signal-safe calls only (the engine's threads may hold
// locks at the moment of fork).
[[noreturn]] void exec_child(pid_t parent, int out_fd, const cpu_set_t& cpus, char* const* argv,
                             char* const* envp) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);   // moesweep killed: the load ends its tree too
  if (getppid() != parent) _exit(1);  // it died before the line above took effect
  setpgid(0, 0);                      // Ctrl-C reaches moesweep, which stops the load itself
  dup2(out_fd, STDOUT_FILENO);
  sched_setaffinity(0, sizeof(cpus), &cpus);
  execve(argv[0], argv, envp);
  _exit(127);
}

std::string status_text(int status) {
  if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
  return fmt::format("exit {}", WEXITSTATUS(status));
}

}  // namespace

std::vector<int> cpus_of_mask_text(const std::string& text) {
  std::vector<bool> mask;
  std::vector<int> out;
  if (text.empty() || !parse_cpu_mask(text, mask)) return out;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<std::string> parse_cotenant_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> out;
  for (const std::string& raw : split_outside_quotes(text)) {
    const std::string kind = cotenant_item(raw, flag);
    if (std::find(out.begin(), out.end(), kind) == out.end()) out.push_back(kind);
  }
  return out;
}

std::vector<int> cotenant_cpus_for(const std::string& point_mask, const std::string& cotenant_cpus,
                                   std::string* why) {
  if (!cotenant_cpus.empty()) {
    std::vector<int> cpus = cpus_of_mask_text(cotenant_cpus);
    if (cpus.empty() && why)
      *why = fmt::format("--cotenant-cpus '{}' names no CPU (0x0c or 2-3)", cotenant_cpus);
    return cpus;
  }
  if (point_mask.empty()) {
    if (why)
      *why =
          "the point is not pinned (no --cpu-mask), so no CPUs are left free for the "
          "co-tenant: pin it with -C, or give --cotenant-cpus";
    return {};
  }
  const std::vector<int> taken = cpus_of_mask_text(point_mask);
  std::vector<int> free;
  for (int cpu : process_affinity())
    if (std::find(taken.begin(), taken.end(), cpu) == taken.end()) free.push_back(cpu);
  if (free.empty() && why)
    *why = fmt::format(
        "--cpu-mask {} leaves no CPU free for the co-tenant: pin the point to "
        "fewer CPUs, or give --cotenant-cpus",
        point_mask);
  return free;
}

std::filesystem::path self_executable() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("moesweep") : p;
}

CotenantProcess::CotenantProcess(const std::string& kind, const std::vector<int>& cpus,
                                 const std::filesystem::path& executable,
                                 const std::atomic<bool>* stop)
    : kind_(kind), cpus_(cpus), tree_mark_(new_process_tree_mark()) {
  std::vector<std::string> args = {executable.string(), "__cotenant", "--cpus",
                                   cpu_list_text(cpus)};
  if (kind.rfind(kCotenantCmdPrefix, 0) == 0)
    args.insert(args.end(), {"--kind", "cmd", "--command=" + kind.substr(4)});
  else
    args.insert(args.end(), {"--kind", kind});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = environment_with_mark(tree_mark_);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw EngineError(fmt::format("co-tenant: no pipe ({})", std::strerror(errno)));
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) exec_child(parent, fds[1], set, argv.data(), envp.data());
  close(fds[1]);
  out_fd_ = fds[0];
  if (pid_ < 0) {
    close(out_fd_);
    throw EngineError(fmt::format("co-tenant: fork failed ({})", std::strerror(errno)));
  }
  if (!stop) stop = &StopOnSignal::process_flag();
  const std::string first = read_line(kReadyTimeoutS, stop);
  if (first != "ready" && stop->load()) {
    end_child();
    throw WorkerInterrupted(WorkerInterrupted::Problem{
        fmt::format("interrupted while the co-tenant '{}' was starting", kind)});
  }
  if (first != "ready") {
    const std::string why = not_ready(first);
    end_child();
    throw EngineError(fmt::format("co-tenant '{}' on CPUs {} did not start ({} __cotenant): {}",
                                  kind, cpu_list_text(cpus), executable.string(), why));
  }
}

// Why the load did not say "ready": what it said instead, how it ended, or
// that it said nothing in time.
std::string CotenantProcess::not_ready(const std::string& first_line) {
  int status = 0;
  if (!first_line.empty())
    return fmt::format("it printed '{}' where 'ready' was expected", first_line.substr(0, 200));
  for (int i = 0; i < 20; ++i) {  // EOF: it is ending; a moment for its exit status
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      end_process_tree({}, tree_mark_);
      return fmt::format(
          "it ended ({}) before it was ready; its own message, if any, is on "
          "moesweep's stderr above",
          status_text(status));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return fmt::format("it did not say 'ready' within {:g} s", kReadyTimeoutS);
}

CotenantProcess::~CotenantProcess() {
  if (pid_ > 0) end_child();
  if (out_fd_ >= 0) close(out_fd_);
}

std::string CotenantProcess::read_line(double timeout_s, const std::atomic<bool>* stop) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (const size_t nl = pending_.find('\n'); nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || pending_.size() > kMaxLineBytes || (stop && stop->load())) return "";
    pollfd p{out_fd_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(stop ? std::min<long long>(left, 50) : left));
    if (ready == 0 && stop) continue;  // a slice passed: look at the stop flag again
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return "";
    char buf[4096];
    const ssize_t n = read(out_fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "";  // EOF: the load ended
    pending_.append(buf, static_cast<size_t>(n));
  }
}

void CotenantProcess::end_child() {
  if (pid_ <= 0) {  // reaped already (not_ready): never kill(-1), which is every process
    end_process_tree({}, tree_mark_);
    return;
  }
  kill(pid_, SIGTERM);  // it ends its own tree (the user's command) and reports
  const auto deadline = Clock::now() + std::chrono::duration<double>(kGraceS);
  int status = 0;
  rusage usage{};
  pid_t done = 0;
  while ((done = wait4(pid_, &status, WNOHANG, &usage)) == 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (done == 0) {
    end_process_tree({pid_}, tree_mark_);
    done = wait4(pid_, &status, 0, &usage);
  }
  if (done == pid_)
    cpu_s_ = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
             (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  pid_ = -1;
  end_process_tree({}, tree_mark_);  // whatever of its tree is left
}

nlohmann::json CotenantProcess::stop() {
  nlohmann::json out = {
      {"kind", cotenant_label(kind_)}, {"cpus", cpu_list_text(cpus_)}, {"pid", pid_}};
  if (kind_.rfind(kCotenantCmdPrefix, 0) == 0) out["command"] = kind_.substr(4);
  if (pid_ <= 0) return out;
  kill(pid_, SIGTERM);
  const std::string line = read_line(kResultTimeoutS);
  end_child();
  out["cpu_s"] = cpu_s_;
  const nlohmann::json result = nlohmann::json::parse(line, nullptr, false);
  if (!result.is_object() || !result.contains("throughput")) {
    out["throughput"] = {{"unavailable", "the co-tenant ended without reporting its throughput"}};
    return out;
  }
  for (const char* key : {"seconds", "throughput", "unit"})
    if (result.contains(key) &&
        (result[key].is_number() || result[key].is_string() || result[key].is_object()))
      out[key] = result[key];
  return out;
}

}  // namespace moesweep
