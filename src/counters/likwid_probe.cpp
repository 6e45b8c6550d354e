#include "counters/likwid_probe.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <thread>

#ifdef MOESWEEP_HAVE_LIKWID
#include <likwid.h>
#endif

namespace moesweep::counters {
namespace {

std::string read_all(std::FILE* f) {
  std::string text;
  std::fflush(f);
  std::rewind(f);
  char buf[512];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, f)) text.append(buf, n);
  return text;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

#ifdef MOESWEEP_HAVE_LIKWID
[[noreturn]] void child_probe(const std::vector<std::string>& groups, std::FILE* result) {
  topology_init();
  const CpuTopology_t topo = get_cpuTopology();
  std::vector<int> cpus;
  for (uint32_t i = 0; i < topo->numHWThreads; ++i)
    cpus.push_back(static_cast<int>(topo->threadPool[i].apicId));
  nlohmann::json out;
  out["init_rc"] = perfmon_init(static_cast<int>(cpus.size()), cpus.data());
  if (out["init_rc"].get<int>() >= 0)
    for (const std::string& g : groups) out["groups"][g] = perfmon_addEventSet(g.c_str());
  std::fputs(out.dump().c_str(), result);
  std::fflush(result);
  ::_exit(0);  // skip atexit handlers and likwid's finalisation in the child
}

// Waits for the child; kills it past `timeout` (a hung perfmon_init). True when killed.
bool wait_or_kill(pid_t pid, std::chrono::seconds timeout, int& status) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// The child's JSON answer (empty: it died before writing one) into `r`.
void read_answer(const std::string& text, int status, LikwidProbeResult& r) {
  if (text.empty()) {
    r.failure = fmt::format("liblikwid ended the process during perfmon_init (exit status {}){}{}",
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                            r.messages.empty() ? "" : ": ", first_line(r.messages));
    return;
  }
  const auto j = nlohmann::json::parse(text, nullptr, false);
  r.init_rc = j.value("init_rc", -1);
  r.initialised = r.init_rc >= 0;
  if (j.contains("groups"))
    for (const auto& [g, id] : j["groups"].items()) r.groups.emplace_back(g, id.get<int>());
  if (!r.initialised)
    r.failure = fmt::format("likwid perfmon_init failed ({}){}{}", r.init_rc,
                            r.messages.empty() ? "" : ": ", first_line(r.messages));
}
#endif

}  // namespace

LikwidProbeResult probe_likwid_in_child(const std::vector<std::string>& groups,
                                        std::chrono::seconds timeout) {
  LikwidProbeResult r;
#ifndef MOESWEEP_HAVE_LIKWID
  (void)groups;
  (void)timeout;
  r.failure = "moesweep was built without liblikwid";
  return r;
#else
  std::FILE* messages = std::tmpfile();
  std::FILE* result = std::tmpfile();
  if (!messages || !result) {
    r.failure = "cannot create temporary files for the likwid probe";
    return r;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::fileno(messages), 1);  // likwid's chatter goes to the file, not our tables
    ::dup2(::fileno(messages), 2);
    child_probe(groups, result);
  }
  if (pid < 0) {
    r.failure = "fork() failed for the likwid probe";
    return r;
  }
  int status = 0;
  const bool killed = wait_or_kill(pid, timeout, status);
  r.messages = read_all(messages);
  const std::string text = read_all(result);
  std::fclose(messages);
  std::fclose(result);
  if (killed)
    r.failure = fmt::format("likwid's perfmon_init did not finish within {} s", timeout.count());
  else
    read_answer(text, status, r);
  return r;
#endif
}

}  // namespace moesweep::counters
