#pragma once
// What the serve tests share: a real llama-server on loopback with a small
// servable twin, workload files written per test, and a fixture that never
// leaves a moesweep or a server behind, whatever the test's outcome.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <thread>

#include "serve/server_process.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep::serve_test {

// A servable twin small enough for CI: tiny kimi-k2.5 with 32 experts.
inline const char* const kTwinFlags = "--experts 32";

inline bool have_server() {
  try {
    find_llama_server("");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

inline std::filesystem::path write_workload(const std::filesystem::path& dir,
                                            const std::string& name, const std::string& body) {
  const auto p = dir / (name + ".json");
  std::ofstream(p) << body;
  return p;
}

inline std::vector<nlohmann::json> requests(const std::filesystem::path& run) {
  std::vector<nlohmann::json> out;
  for (const auto& line : test::read_lines(run / "requests.jsonl"))
    out.push_back(nlohmann::json::parse(line));
  return out;
}

// Running, and not a zombie waiting for a reaper.
inline bool alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string text{std::istreambuf_iterator<char>(stat), {}};
  const size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] != 'Z';
}

// Waits (bounded) until the run directory names the server's pid and at
// least `n` requests are recorded; returns the pid (-1 on timeout).
inline pid_t wait_for_requests(const std::filesystem::path& out, size_t n) {
  for (int i = 0; i < 3000; ++i) {  // 300 s: the first test may build the twin
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (const auto& e : std::filesystem::directory_iterator(out)) {
      if (!std::filesystem::exists(e.path() / "requests.jsonl")) continue;
      if (test::read_lines(e.path() / "requests.jsonl").size() < n) continue;
      const auto meta = read_json_file(e.path() / "meta.json", "meta");
      return meta["server"].value("pid", -1);
    }
  }
  return -1;
}

class ServeBench : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_server()) GTEST_SKIP() << "no llama-server built (scripts/setup builds it)";
    dir_ = test::scratch_dir();
  }
  void TearDown() override {
    if (cli_pid_ > 0 && ::waitpid(cli_pid_, nullptr, WNOHANG) == 0) {
      ::kill(cli_pid_, SIGKILL);  // its server follows (PR_SET_PDEATHSIG)
      ::waitpid(cli_pid_, nullptr, 0);
    }
    for (pid_t pid : server_pids_)
      if (pid > 0 && alive(pid)) ::kill(pid, SIGKILL);
    if (server_pid_ > 0 && alive(server_pid_)) ::kill(server_pid_, SIGKILL);
  }
  // serve-bench on a 200-request prompt-cache workload in the background
  // (stdout and stderr in dir_/out.txt, err.txt); returns once `n` requests
  // are recorded, with cli_pid_ and server_pid_ set (server_pid_ -1 on timeout).
  void start_long_run(size_t n) {
    const auto wl = write_workload(dir_, "long", R"({"kind": "prompt-cache", "system_tokens": 64,
        "suffix_tokens": 16, "requests": 200, "n_predict": 8})");
    cli_pid_ = test::spawn_cli(fmt::format("serve-bench {} --workload {} --out-dir {} --no-db",
                                           kTwinFlags, wl.string(), dir_.string()),
                               dir_ / "out.txt", dir_ / "err.txt");
    server_pid_ = wait_for_requests(dir_, n);
  }
  // Ctrl-C to the running serve-bench: it exits 130, its server is gone, and
  // its run directory (under dir_) says "interrupted"; returns that directory.
  std::filesystem::path interrupt_and_check() {
    const pid_t cli = cli_pid_;
    EXPECT_GT(server_pid_, 0) << "no request recorded in time";
    ::kill(cli, SIGINT);
    EXPECT_EQ(test::wait_exit_code(cli, std::chrono::seconds(60)), 130);
    cli_pid_ = -1;
    EXPECT_FALSE(alive(server_pid_)) << "llama-server left running after Ctrl-C";
    const auto run = test::only_run_dir(dir_);
    EXPECT_EQ(read_json_file(run / "meta.json", "meta")["status"], "interrupted");
    return run;
  }
  std::filesystem::path dir_;
  pid_t server_pid_ = -1;
  std::vector<pid_t> server_pids_;  // more servers a test started (one per configuration)
  pid_t cli_pid_ = -1;
};

}  // namespace moesweep::serve_test
