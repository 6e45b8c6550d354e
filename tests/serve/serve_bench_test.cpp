// serve-bench against a real llama-server on loopback, with a small servable
// twin: the prompt cache seen through cache_n, a server killed mid-workload,
// Ctrl-C, and a --url that does not answer. Every test stops what it started.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <thread>

#include "serve/server_process.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

// A servable twin small enough for CI: tiny kimi-k2.5 with 32 experts.
const char* const kTwinFlags = "--experts 32";

bool have_server() {
  try {
    find_llama_server("");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::filesystem::path write_workload(const std::filesystem::path& dir, const std::string& name,
                                     const std::string& body) {
  const auto p = dir / (name + ".json");
  std::ofstream(p) << body;
  return p;
}

std::vector<nlohmann::json> requests(const std::filesystem::path& run) {
  std::vector<nlohmann::json> out;
  for (const auto& line : test::read_lines(run / "requests.jsonl"))
    out.push_back(nlohmann::json::parse(line));
  return out;
}

// Running, and not a zombie waiting for a reaper.
bool alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string text{std::istreambuf_iterator<char>(stat), {}};
  const size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] != 'Z';
}

// Waits (bounded) until the run directory names the server's pid and at
// least `n` requests are recorded; returns the pid (-1 on timeout).
pid_t wait_for_requests(const std::filesystem::path& out, size_t n) {
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
  // Never leave a moesweep or a server behind, whatever the test's outcome.
  void TearDown() override {
    if (cli_pid_ > 0 && ::waitpid(cli_pid_, nullptr, WNOHANG) == 0) {
      ::kill(cli_pid_, SIGKILL);  // its server follows (PR_SET_PDEATHSIG)
      ::waitpid(cli_pid_, nullptr, 0);
    }
    if (server_pid_ > 0 && alive(server_pid_)) ::kill(server_pid_, SIGKILL);
  }
  std::filesystem::path dir_;
  pid_t server_pid_ = -1;
  pid_t cli_pid_ = -1;
};

TEST_F(ServeBench, WarmRequestsReuseTheSharedPrefixAndABrokenTopDoesNot) {
  const std::string body = R"({"kind": "prompt-cache", "system_tokens": 256, "suffix_tokens": 32,
                               "requests": 3, "n_predict": 4, "break_cache": )";
  const auto warm = write_workload(dir_, "pc", body + "\"none\"}");
  const auto broken = write_workload(dir_, "pcb", body + "\"timestamp\"}");
  const auto r = test::run_cli(fmt::format(
      "serve-bench {} --workload {},{} --out-dir {} --db {} -- -t 2", kTwinFlags, warm.string(),
      broken.string(), (dir_ / "runs").string(), (dir_ / "db.sqlite").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* column :
       {"Task", "PP", "TG", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s", "cache_n"})
    EXPECT_NE(r.out.find(fmt::format(" {} |", column)), std::string::npos) << column << r.out;
  const auto run = test::only_run_dir(dir_ / "runs");
  const auto reqs = requests(run);
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[0]["cache_n"], 0);
  for (int i : {1, 2}) {  // the 256-token digest comes from the cache, the suffix does not
    EXPECT_GE(reqs[i]["cache_n"].get<int>(), 252) << reqs[i].dump();
    EXPECT_LE(reqs[i]["cache_n"].get<int>(), 256 + 32) << reqs[i].dump();
    EXPECT_EQ(reqs[i]["prompt_tokens"], 288);
  }
  for (int i : {4, 5}) {  // a new timestamp at the top: only its first tokens match
    EXPECT_TRUE(reqs[i]["ok"].get<bool>()) << reqs[i].dump();
    EXPECT_LT(reqs[i]["cache_n"].get<int>(), 64) << reqs[i].dump();
  }
  const auto meta = read_json_file(run / "meta.json", "meta");
  EXPECT_EQ(meta["status"], "complete");
  server_pid_ = meta["server"]["pid"].get<int>();
  EXPECT_FALSE(alive(server_pid_)) << "llama-server still running after serve-bench ended";
  const auto rows = test::run_shell(fmt::format("sqlite3 {} 'SELECT count(*) FROM serve_requests'",
                                                (dir_ / "db.sqlite").string()));
  if (rows.exit_code == 0) {  // the sqlite3 shell is optional
    EXPECT_EQ(rows.out, "6\n");
  }
}

TEST_F(ServeBench, AServerKilledMidWorkloadFailsTheRestAndLeavesNothingRunning) {
  const auto wl = write_workload(dir_, "long", R"({"kind": "prompt-cache", "system_tokens": 64,
      "suffix_tokens": 16, "requests": 200, "n_predict": 8})");
  const pid_t cli = test::spawn_cli(fmt::format("serve-bench {} --workload {} --out-dir {} --no-db",
                                                kTwinFlags, wl.string(), dir_.string()),
                                    dir_ / "out.txt", dir_ / "err.txt");
  cli_pid_ = cli;
  server_pid_ = wait_for_requests(dir_, 2);
  ASSERT_GT(server_pid_, 0) << "no request recorded in time";
  ::kill(server_pid_, SIGKILL);
  EXPECT_EQ(test::wait_exit_code(cli, std::chrono::seconds(120)), 3);
  cli_pid_ = -1;
  EXPECT_FALSE(alive(server_pid_));
  std::ifstream err_in(dir_ / "err.txt");
  const std::string err{std::istreambuf_iterator<char>(err_in), {}};
  EXPECT_NE(err.find("llama-server ended (signal 9)"), std::string::npos) << err;
  const auto run = test::only_run_dir(dir_);
  const auto reqs = requests(run);
  ASSERT_FALSE(reqs.empty());
  EXPECT_FALSE(reqs.back()["ok"].get<bool>());
  EXPECT_NE(reqs.back()["error"].get<std::string>().find("llama-server ended"), std::string::npos);
  EXPECT_EQ(read_json_file(run / "meta.json", "meta")["status"], "points_failed");
}

TEST_F(ServeBench, CtrlCStopsTheServerAndExits130) {
  const auto wl = write_workload(dir_, "long", R"({"kind": "prompt-cache", "system_tokens": 64,
      "suffix_tokens": 16, "requests": 200, "n_predict": 8})");
  const pid_t cli = test::spawn_cli(fmt::format("serve-bench {} --workload {} --out-dir {} --no-db",
                                                kTwinFlags, wl.string(), dir_.string()),
                                    dir_ / "out.txt", dir_ / "err.txt");
  cli_pid_ = cli;
  server_pid_ = wait_for_requests(dir_, 1);
  ASSERT_GT(server_pid_, 0) << "no request recorded in time";
  ::kill(cli, SIGINT);
  EXPECT_EQ(test::wait_exit_code(cli, std::chrono::seconds(60)), 130);
  cli_pid_ = -1;
  EXPECT_FALSE(alive(server_pid_)) << "llama-server left running after Ctrl-C";
  EXPECT_EQ(read_json_file(test::only_run_dir(dir_) / "meta.json", "meta")["status"],
            "interrupted");
}

TEST_F(ServeBench, AKilledMoesweepTakesItsServerWithIt) {
  const auto wl = write_workload(dir_, "long", R"({"kind": "prompt-cache", "system_tokens": 64,
      "suffix_tokens": 16, "requests": 200, "n_predict": 8})");
  const pid_t cli = test::spawn_cli(fmt::format("serve-bench {} --workload {} --out-dir {} --no-db",
                                                kTwinFlags, wl.string(), dir_.string()),
                                    dir_ / "out.txt", dir_ / "err.txt");
  cli_pid_ = cli;
  server_pid_ = wait_for_requests(dir_, 1);
  ASSERT_GT(server_pid_, 0) << "no request recorded in time";
  ::kill(cli, SIGKILL);  // no handler runs: only PR_SET_PDEATHSIG can stop the server
  EXPECT_EQ(test::wait_exit_code(cli, std::chrono::seconds(30)), 128 + SIGKILL);
  cli_pid_ = -1;
  for (int i = 0; i < 100 && alive(server_pid_); ++i)  // 10 s
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(alive(server_pid_)) << "llama-server outlived a killed moesweep";
}

TEST_F(ServeBench, ColdStartDropsTheModelFromThePageCacheOrSaysWhyNot) {
  const auto wl = write_workload(dir_, "cold", R"({"kind": "cold-start", "system_tokens": 64,
      "suffix_tokens": 16, "n_predict": 4})");
  const auto r = test::run_cli(fmt::format("serve-bench {} --workload {} --out-dir {} --no-db",
                                           kTwinFlags, wl.string(), (dir_ / "runs").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = test::only_run_dir(dir_ / "runs");
  const auto reqs = requests(run);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["task"].get<std::string>().rfind("cold start", 0), 0u);
  EXPECT_EQ(reqs[1]["task"].get<std::string>().rfind("warm start", 0), 0u);
  const auto meta = read_json_file(run / "meta.json", "meta");
  const auto& cold = meta["cold_start"][0];
  if (cold["dropped"].get<bool>()) {  // dropped: the server started from a cold cache
    EXPECT_LE(cold["resident_at_start"].get<double>(), 0.05) << cold.dump();
  } else {  // else the run says why (tmpfs, a process mapping the file)
    EXPECT_FALSE(cold["why_not"].get<std::string>().empty()) << cold.dump();
  }
  for (const auto& phase : meta["cold_start"])
    EXPECT_GT(phase["ready_s"].get<double>(), 0) << phase.dump();
  server_pid_ = meta["server"]["pid"].get<int>();
  EXPECT_FALSE(alive(server_pid_));
}

TEST(ServeBenchUrl, AUrlThatDoesNotAnswerIsAClearError) {
  const auto dir = test::scratch_dir();
  const int port = free_loopback_port();  // nobody listens there
  const auto r = test::run_cli(fmt::format(
      "serve-bench --url http://127.0.0.1:{} --no-db --out-dir {}", port, dir.string()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("does not answer GET /health"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix:"), std::string::npos) << r.err;
  const auto bad = test::run_cli("serve-bench --url https://example.org/v1 --no-db");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not a server address"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace moesweep
