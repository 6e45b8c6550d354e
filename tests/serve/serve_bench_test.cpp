// serve-bench against a real llama-server on loopback, with a small servable
// twin: the prompt cache seen through cache_n, a server killed mid-workload,
// Ctrl-C, and a --url that does not answer (its run directory says "failed").
// Every test stops what it started.
#include "serve_fixture.hpp"

namespace moesweep {
namespace {

using namespace serve_test;

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
  start_long_run(2);
  const pid_t cli = cli_pid_;
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
  start_long_run(1);
  ASSERT_GT(server_pid_, 0) << "no request recorded in time";
  interrupt_and_check();
}

TEST_F(ServeBench, AKilledMoesweepTakesItsServerWithIt) {
  start_long_run(1);
  const pid_t cli = cli_pid_;
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
  const auto dir = test::scratch_dir() / "runs";
  const int port = free_loopback_port();  // nobody listens there
  const auto r = test::run_cli(fmt::format(
      "serve-bench --url http://127.0.0.1:{} --no-db --out-dir {}", port, dir.string()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("does not answer GET /health"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix:"), std::string::npos) << r.err;
  // The run directory it leaves says so: failed, with the reason, no request.
  const auto run = test::only_run_dir(dir);
  const auto meta = read_json_file(run / "meta.json", "meta");
  EXPECT_EQ(meta["status"], "failed") << meta.dump(2);
  EXPECT_NE(meta["error"].get<std::string>().find("does not answer GET /health"), std::string::npos)
      << meta.dump(2);
  EXPECT_TRUE(requests(run).empty());
  const auto bad = test::run_cli("serve-bench --url https://example.org/v1 --no-db");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not a server address"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace moesweep
