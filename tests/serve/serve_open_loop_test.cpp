// Open-loop load against a real llama-server on loopback with a small
// servable twin: a sweep of three rates gives each its percentiles, goodput
// and cache check, the vLLM files and the token times; Ctrl-C stops the
// arrivals and the run ends interrupted with the server stopped. No timing is
// asserted: only that the figures exist and hang together.
#include "serve_fixture.hpp"

namespace moesweep {
namespace {

using namespace serve_test;

const char* const kSmallOpenLoop = R"({"kind": "open-loop", "seed": 5,
    "prompt_tokens": {"dist": "uniform", "min": 24, "max": 40}, "output_tokens": 4,
    "cache_protocol": {"warmup": 1}})";

TEST_F(ServeBench, ARateSweepOfThreeRatesGivesPercentilesGoodputAndVllmFiles) {
  const auto wl = write_workload(dir_, "ol", kSmallOpenLoop);
  const auto r = test::run_cli(fmt::format(
      "serve-bench {} --workload {} --request-rate 1,2,4 --num-requests 5 "
      "--slo ttft_p99=600s,tpot_p99=600s --format vllm --save-tokens --out-dir {} --no-db -- -t 2",
      kTwinFlags, wl.string(), (dir_ / "runs").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::squeezed(r.out).find("| rate req/s |"), std::string::npos) << r.out;
  const auto run = test::only_run_dir(dir_ / "runs");
  const auto summary = read_json_file(run / "summary.json", "summary");
  const auto& rates = summary[0]["rates"];
  ASSERT_EQ(rates.size(), 3u) << summary.dump(2);
  for (size_t i = 0; i < 3; ++i) {
    const auto& rate = rates[i];
    EXPECT_EQ(rate["rate"].get<double>(), (std::vector<double>{1, 2, 4})[i]);
    EXPECT_EQ(rate["sent"], 5);
    EXPECT_EQ(rate["failed"], 0) << rate.dump(2);
    for (const char* m : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"})
      for (const char* stat : {"mean", "p50", "p90", "p95", "p99"})
        EXPECT_TRUE(rate[m][stat].is_number()) << m << " " << stat;
    EXPECT_LE(rate["ttft_ms"]["p50"].get<double>(), rate["ttft_ms"]["p99"].get<double>());
    EXPECT_TRUE(rate["slos_met"].get<bool>());  // bounds no twin misses
    EXPECT_EQ(rate["goodput"]["good"], 5);
    EXPECT_EQ(rate["cache"]["unexpected_reuse"], 0) << rate["cache"].dump();
    EXPECT_EQ(rate["cache"]["requests_with_cache_n"], 5);
    // llama-server's own counters give the hit ratio too
    EXPECT_TRUE(rate["server_cache"]["hit_ratio"].is_number()) << rate["server_cache"].dump();
  }
  const auto reqs = requests(run);
  ASSERT_EQ(reqs.size(), 1u + 15u);  // the warm-up, then 5 per rate
  EXPECT_EQ(reqs[0]["phase"], "warmup");
  for (size_t i = 1; i < reqs.size(); ++i) {
    EXPECT_EQ(reqs[i]["phase"], "measure");
    EXPECT_EQ(reqs[i]["token_ms"].size(), 4u) << reqs[i].dump();  // --save-tokens
    EXPECT_GE(reqs[i]["lag_ms"].get<double>(), 0);
  }
  size_t vllm_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(run / "vllm")) {
    const auto j = read_json_file(e.path(), "vllm");
    EXPECT_EQ(j["completed"], 5) << e.path();
    EXPECT_TRUE(j["request_goodput"].is_number());
    ++vllm_files;
  }
  EXPECT_EQ(vllm_files, 3u);
  const auto meta = read_json_file(run / "meta.json", "meta");
  server_pid_ = meta["server"]["pid"].get<int>();
  EXPECT_FALSE(alive(server_pid_));
}

TEST_F(ServeBench, CtrlCStopsTheArrivalsAndEndsTheOpenLoopRunInterrupted) {
  const auto wl = write_workload(dir_, "ol", kSmallOpenLoop);
  cli_pid_ = test::spawn_cli(
      fmt::format("serve-bench {} --workload {} --request-rate 0.5 --num-requests 500 --out-dir "
                  "{} --no-db",
                  kTwinFlags, wl.string(), dir_.string()),
      dir_ / "out.txt", dir_ / "err.txt");
  server_pid_ = wait_for_requests(dir_, 3);
  ASSERT_GT(server_pid_, 0) << "no request recorded in time";
  const auto run = interrupt_and_check();
  EXPECT_LT(requests(run).size(), 20u);  // the arrivals stopped: far from 500
  const auto summary = read_json_file(run / "summary.json", "summary");
  EXPECT_TRUE(summary[0]["rates"][0]["interrupted"].get<bool>()) << summary.dump(2);
}

}  // namespace
}  // namespace moesweep
