#include "util/process_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string_view>
#include <thread>

extern char** environ;

namespace moesweep {
namespace {

constexpr size_t kMaxStatBytes = 4096;
constexpr size_t kMaxEnvironBytes = size_t{4} << 20;  // above ARG_MAX's share of it
constexpr int kMaxRounds = 200;                       // a fork bomb is stopped a round at a time

// A small /proc file, at most `cap` bytes ("" when it is gone or unreadable).
std::string read_proc_file(const std::string& path, size_t cap) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() >= cap) break;
  }
  ::close(fd);
  return out;
}

// Every live process and its parent (/proc/PID/stat: "pid (comm) S ppid ...").
std::map<pid_t, pid_t> parents() {
  std::map<pid_t, pid_t> out;
  DIR* dir = ::opendir("/proc");
  if (!dir) return out;
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    const std::string stat = read_proc_file(fmt::format("/proc/{}/stat", pid), kMaxStatBytes);
    const size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 4 >= stat.size()) continue;
    const long ppid = std::strtol(stat.c_str() + close + 4, nullptr, 10);  // past ") S "
    out[static_cast<pid_t>(pid)] = static_cast<pid_t>(ppid);
  }
  ::closedir(dir);
  return out;
}

bool carries(pid_t pid, const std::string& entry) {
  const std::string env = read_proc_file(fmt::format("/proc/{}/environ", pid), kMaxEnvironBytes);
  for (size_t at = 0; at < env.size();) {
    const size_t end = env.find('\0', at);
    const size_t len = (end == std::string::npos ? env.size() : end) - at;
    if (env.compare(at, len, entry) == 0) return true;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

// The tree's members now: each root, its descendants, every process with the
// mark and its descendants; never `self`.
std::set<pid_t> members(const std::vector<pid_t>& roots, const std::string& entry, pid_t self) {
  const std::map<pid_t, pid_t> parent = parents();
  std::multimap<pid_t, pid_t> children;
  for (const auto& [pid, ppid] : parent) children.emplace(ppid, pid);
  std::vector<pid_t> todo(roots.begin(), roots.end());
  if (!entry.empty())
    for (const auto& [pid, ppid] : parent)
      if (pid != self && carries(pid, entry)) todo.push_back(pid);
  std::set<pid_t> out;
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    if (p <= 0 || (p != self && !out.insert(p).second)) continue;
    const auto [first, last] = children.equal_range(p);
    for (auto it = first; it != last; ++it) todo.push_back(it->second);
  }
  out.erase(self);
  return out;
}

// Waits a moment for each killed process that is our child (an adopted
// orphan): a zombie of ours would hold its slot until we exit.
void reap_adopted(const std::set<pid_t>& killed, const std::vector<pid_t>& roots) {
  std::set<pid_t> left;
  for (pid_t p : killed)
    if (std::find(roots.begin(), roots.end(), p) == roots.end()) left.insert(p);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!left.empty() && std::chrono::steady_clock::now() < until) {
    for (auto it = left.begin(); it != left.end();) {
      const pid_t r = ::waitpid(*it, nullptr, WNOHANG);
      it = r == 0 ? std::next(it) : left.erase(it);  // reaped, or not ours (ECHILD)
    }
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

std::string new_process_tree_mark() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = [] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  return fmt::format("{}-{}-{:x}", ::getpid(), counter++, salt);
}

std::string process_tree_entry(const std::string& mark) {
  return fmt::format("{}={}", kProcessTreeVariable, mark);
}

std::vector<std::string> environment_with_mark(const std::string& mark) {
  const std::string prefix = std::string(kProcessTreeVariable) + "=";
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (std::string_view(*e).substr(0, prefix.size()) != prefix) env.emplace_back(*e);
  env.push_back(process_tree_entry(mark));
  return env;
}

void adopt_orphans() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

int end_process_tree(const std::vector<pid_t>& roots, const std::string& mark) {
  const pid_t self = ::getpid();
  const std::string entry = mark.empty() ? std::string() : process_tree_entry(mark);
  std::set<pid_t> stopped;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool fresh = false;
    for (pid_t p : members(roots, entry, self))
      if (stopped.insert(p).second) {
        ::kill(p, SIGSTOP);  // no new child from it while we look again
        fresh = true;
      }
    if (!fresh) break;
  }
  for (pid_t p : stopped) ::kill(p, SIGKILL);
  for (pid_t root : roots)
    if (root > 0 && root != self) ::kill(-root, SIGKILL);  // the group: ESRCH when it has none
  reap_adopted(stopped, roots);
  return static_cast<int>(stopped.size());
}

std::vector<pid_t> processes_with_mark(const std::string& mark) {
  std::vector<pid_t> out;
  const std::string entry = process_tree_entry(mark);
  const pid_t self = ::getpid();
  for (const auto& [pid, ppid] : parents())
    if (pid != self && carries(pid, entry)) out.push_back(pid);
  return out;
}

}  // namespace moesweep
