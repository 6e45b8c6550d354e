// serve-bench's server-level axes, compare and report on serve runs, and the
// OpenAI-compatible client path, all against a real llama-server on loopback.
#include "serve_fixture.hpp"

#include <set>

namespace moesweep {
namespace {

using namespace serve_test;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_F(ServeBench, TwoServerConfigurationsRunTwoServersOneAfterTheOther) {
  const auto wl = write_workload(dir_, "b", R"({"kind": "batch", "system_tokens": 64,
      "suffix_tokens": 16, "requests": 2, "n_predict": 4, "concurrency": "1,2"})");
  const auto r = test::run_cli(
      fmt::format("serve-bench {} --workload {} --parallel 1,2 --out-dir {} --db {}", kTwinFlags,
                  wl.string(), (dir_ / "runs").string(), (dir_ / "db.sqlite").string()));
  const auto run = test::only_run_dir(dir_ / "runs");
  const auto meta = read_json_file(run / "meta.json", "meta");
  for (const auto& srv : meta["servers"]) server_pids_.push_back(srv.value("pid", -1));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("## b (batch, server np=1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("## b (batch, server np=2)"), std::string::npos) << r.out;
  ASSERT_EQ(meta["servers"].size(), 2u) << meta.dump();
  EXPECT_NE(meta["servers"][0]["pid"], meta["servers"][1]["pid"]);
  // The second server started only after the first was stopped.
  EXPECT_GE(meta["servers"][1]["started_s"].get<double>(),
            meta["servers"][0]["stopped_s"].get<double>());
  for (int i : {0, 1}) {
    EXPECT_EQ(meta["servers"][i]["settings"]["parallel"], i + 1);
    EXPECT_TRUE(std::filesystem::file_size(run / fmt::format("server-{}.log", i + 1)) > 0);
    EXPECT_FALSE(alive(meta["servers"][i]["pid"].get<int>()));
  }
  std::map<std::string, int> per_config;
  for (const auto& q : requests(run)) {
    EXPECT_TRUE(q["ok"].get<bool>()) << q.dump();
    ++per_config[q["config"].get<std::string>()];
    EXPECT_EQ(q["server_settings"]["parallel"].get<int>(), q["config"] == "np=1" ? 1 : 2)
        << q.dump();
  }
  EXPECT_EQ(per_config, (std::map<std::string, int>{{"np=1", 4}, {"np=2", 4}}));
  const auto rows = test::run_shell(fmt::format(
      "sqlite3 {} 'SELECT config, parallel, count(*) FROM serve_workloads JOIN serve_requests "
      "USING (run_id, config, workload) GROUP BY config ORDER BY config'",
      (dir_ / "db.sqlite").string()));
  if (rows.exit_code == 0) {  // the sqlite3 shell is optional
    EXPECT_EQ(rows.out, "np=1|1|4\nnp=2|2|4\n");
  }
}

TEST(ServeBenchAxes, ServerAxesWithUrlOrTwiceGivenAreRefused) {
  const int port = free_loopback_port();
  const auto r =
      test::run_cli(fmt::format("serve-bench --url http://127.0.0.1:{} -t 1,2 --no-db", port));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--threads was given with --url"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix:"), std::string::npos) << r.err;
  const auto twice =
      test::run_cli("serve-bench --gguf none.gguf --parallel 1,2 --no-db -- --parallel 4");
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_NE(twice.err.find("--parallel is given as a serve-bench axis"), std::string::npos)
      << twice.err;
  const auto bad = test::run_cli("serve-bench --gguf none.gguf --parallel 0 --no-db");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// One small run, then: report draws the three figures; compared with itself
// nothing regresses; a copy whose stored TTFT and E2E were made 5 s slower
// regresses (exit 4); a serve run beside a sweep run is refused.
TEST_F(ServeBench, CompareAndReportWorkOnServeRuns) {
  const auto pc = write_workload(dir_, "pc", R"({"kind": "prompt-cache", "system_tokens": 128,
      "suffix_tokens": 16, "requests": 4, "n_predict": 4})");
  const auto b = write_workload(dir_, "b", R"({"kind": "batch", "system_tokens": 64,
      "suffix_tokens": 16, "requests": 2, "n_predict": 4, "concurrency": "1,2"})");
  const auto r =
      test::run_cli(fmt::format("serve-bench {} --workload {},{} --out-dir {} --no-db", kTwinFlags,
                                pc.string(), b.string(), (dir_ / "runs").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = test::only_run_dir(dir_ / "runs");

  const auto rep = test::run_cli(fmt::format("report {}", run.string()));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  for (const char* png :
       {"ttft_by_request.png", "cache_hit_by_request.png", "throughput_by_concurrency.png"})
    EXPECT_GT(std::filesystem::file_size(run / "report" / png), 1000u) << png << rep.out;
  EXPECT_NE(read_text(run / "report" / "report.md").find("Task |"), std::string::npos);

  const auto same = test::run_cli(fmt::format("compare {} {}", run.string(), run.string()));
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  for (const char* metric : {"TTFT p50 ms", "TTFT p99 ms", "ITL p50 ms", "E2E p50 ms",
                             "output tokens/s", "cache hit ratio"})
    EXPECT_NE(same.out.find(metric), std::string::npos) << metric << same.out;

  const auto slower = dir_ / "slower";
  std::filesystem::copy(run, slower, std::filesystem::copy_options::recursive);
  std::ofstream doctored(slower / "requests.jsonl", std::ios::trunc);
  for (auto q : requests(run)) {  // the stored file, never the timing itself
    q["ttft_ms"] = q["ttft_ms"].get<double>() + 5000;
    q["e2e_ms"] = q["e2e_ms"].get<double>() + 5000;
    doctored << q.dump() << "\n";
  }
  doctored.close();
  const auto worse = test::run_cli(fmt::format("compare {} {}", run.string(), slower.string()));
  EXPECT_EQ(worse.exit_code, 4) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("regression"), std::string::npos) << worse.out;

  std::filesystem::create_directories(dir_ / "sweep-run");
  std::ofstream(dir_ / "sweep-run" / "meta.json") << R"({"run_id": "x"})";
  const auto mixed =
      test::run_cli(fmt::format("compare {} {}", run.string(), (dir_ / "sweep-run").string()));
  EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("is a serve-bench run and"), std::string::npos) << mixed.err;
}

TEST_F(ServeBench, TheOpenAiPathsRecordLatencyAndUsage) {
  const auto pc = write_workload(dir_, "pc", R"({"kind": "prompt-cache", "system_tokens": 128,
      "suffix_tokens": 16, "requests": 3, "n_predict": 5})");
  for (const char* api : {"openai", "openai-chat"}) {
    const auto out = dir_ / api;
    const auto r =
        test::run_cli(fmt::format("serve-bench {} --workload {} --api {} --out-dir {} "
                                  "--no-db",
                                  kTwinFlags, pc.string(), api, out.string()));
    ASSERT_EQ(r.exit_code, 0) << api << r.err;
    EXPECT_NE(r.out.find("prompt lengths approximate"), std::string::npos) << r.out;
    const auto run = test::only_run_dir(out);
    const auto reqs = requests(run);
    ASSERT_EQ(reqs.size(), 3u);
    for (const auto& q : reqs) {
      EXPECT_EQ(q["api"], api);
      EXPECT_FALSE(q["prompt_tokens_exact"].get<bool>());
      EXPECT_GT(q["ttft_ms"].get<double>(), 0) << q.dump();
      EXPECT_FALSE(q["itl_ms"].empty()) << q.dump();
      EXPECT_EQ(q["usage_completion_tokens"], 5) << q.dump();
      EXPECT_GT(q["usage_prompt_tokens"].get<int>(), 100) << q.dump();  // ~144 words
    }
    const auto meta = read_json_file(run / "meta.json", "meta");
    EXPECT_EQ(meta["api"], api);
    server_pid_ = meta["server"]["pid"].get<int>();
    EXPECT_FALSE(alive(server_pid_));
  }
}

// --url: a server someone else started (here, by the test) is spoken to
// natively when it answers /tokenize (auto), or through /v1 when asked.
TEST_F(ServeBench, AUrlServerIsDetectedAndCanBeSpokenToThroughV1) {
  const auto pc = write_workload(dir_, "pc", R"({"kind": "prompt-cache", "system_tokens": 64,
      "suffix_tokens": 16, "requests": 2, "n_predict": 3})");
  const auto first = test::run_cli(
      fmt::format("serve-bench {} --workload {} --out-dir {} --no-db", kTwinFlags, pc.string(),
                  (dir_ / "first").string()));  // builds (or finds) the twin, and names it
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string twin =
      read_json_file(test::only_run_dir(dir_ / "first") / "meta.json", "meta")["model"];
  ServerProcess server;  // its destructor stops it, whatever happens below
  const int port = free_loopback_port();
  server.start(find_llama_server(""),
               {"-m", twin, "--host", "127.0.0.1", "--port", std::to_string(port), "-c", "1024"},
               dir_ / "server.log");
  server_pid_ = server.pid();
  server.wait_ready(port, std::chrono::seconds(120), [] { return false; });
  for (const char* api : {"auto", "openai"}) {
    const auto out = dir_ / api;
    const auto r = test::run_cli(
        fmt::format("serve-bench --url http://127.0.0.1:{} --workload {} --api {} --out-dir {} "
                    "--no-db",
                    port, pc.string(), api, out.string()));
    ASSERT_EQ(r.exit_code, 0) << api << r.err;
    const auto meta = read_json_file(test::only_run_dir(out) / "meta.json", "meta");
    EXPECT_EQ(meta["api"], std::string(api) == "auto" ? "llama" : "openai");
    for (const auto& q : requests(test::only_run_dir(out))) {
      EXPECT_TRUE(q["ok"].get<bool>()) << q.dump();
      EXPECT_GT(q["generated"].get<int>(), 0) << q.dump();
    }
  }
}

}  // namespace
}  // namespace moesweep
