// The parts of serve-bench that need no server: llama-server's argv, the
// flags it refuses, URLs, workload files and percentiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "serve/serve_bench.hpp"
#include "serve/serve_client.hpp"
#include "serve/serve_output.hpp"
#include "serve/server_process.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

bool contains_pair(const std::vector<std::string>& v, const std::string& a, const std::string& b) {
  for (size_t i = 0; i + 1 < v.size(); ++i)
    if (v[i] == a && v[i + 1] == b) return true;
  return false;
}

TEST(ServeArgs, ContextAndSlotsAreSizedForTheWorkloadsUnlessGiven) {
  ServeBenchOptions o;
  o.gguf = "m.gguf";
  Workload w;
  w.kind = "batch";
  w.system_tokens = 1000;
  w.suffix_tokens = 200;
  w.n_predict = 50;
  w.concurrency = {1, 4};
  o.workloads = {w};
  const auto args = llama_server_args(o, ServerConfig{}, 1234);
  EXPECT_TRUE(contains_pair(args, "--parallel", "4"));
  EXPECT_TRUE(contains_pair(args, "-c", std::to_string(1536 * 4)));  // 1216+50+256 -> 1536
  EXPECT_TRUE(contains_pair(args, "--port", "1234"));
  EXPECT_TRUE(contains_pair(args, "--host", "127.0.0.1"));
  EXPECT_NE(std::find(args.begin(), args.end(), "--metrics"), args.end());
  o.server_args = {"-c", "8192", "--parallel", "2", "-fa", "on"};
  const auto given = llama_server_args(o, ServerConfig{}, 1234);
  EXPECT_TRUE(contains_pair(given, "-c", "8192"));
  EXPECT_EQ(std::count(given.begin(), given.end(), "-c"), 1);
  EXPECT_EQ(std::count(given.begin(), given.end(), "--parallel"), 1);
}

TEST(ServeArgs, FlagsSetByServeBenchAreRefused) {
  EXPECT_NO_THROW(check_passthrough_args({"-t", "2", "-ctk", "q8_0", "--mlock", "-ot", "x=CPU"}));
  EXPECT_THROW(check_passthrough_args({"--port", "8080"}), UserError);
  EXPECT_THROW(check_passthrough_args({"-m", "x.gguf"}), UserError);
  EXPECT_THROW(check_passthrough_args({"--host=0.0.0.0"}), UserError);
}

TEST(ServeArgs, UrlsAreHostAndPortOnly) {
  const auto a = parse_server_url("http://127.0.0.1:8080");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 8080);
  EXPECT_EQ(parse_server_url("http://gpu-box:9000/").port, 9000);
  EXPECT_THROW(parse_server_url("https://127.0.0.1:8080"), UserError);
  EXPECT_THROW(parse_server_url("http://127.0.0.1"), UserError);
  EXPECT_THROW(parse_server_url("http://127.0.0.1:99999"), UserError);
  EXPECT_THROW(parse_server_url("http://h:1/v1/completions"), UserError);
}

TEST(ServeArgs, ShippedWorkloadsLoadAndBadOnesAreRefused) {
  for (const char* name :
       {"prompt-cache", "prompt-cache-broken", "multi-turn", "batch", "cold-start"}) {
    const Workload w = load_workload(name);
    EXPECT_FALSE(w.kind.empty()) << name;
  }
  EXPECT_EQ(load_workload("prompt-cache-broken").break_cache, "timestamp");
  EXPECT_EQ(load_workload("batch").concurrency, (std::vector<int>{1, 2, 4}));
  EXPECT_THROW(load_workload("no-such-workload"), UserError);
  const auto dir = test::scratch_dir();
  std::ofstream(dir / "bad.json") << R"({"kind": "prompt-cache", "requests": 0})";
  EXPECT_THROW(load_workload((dir / "bad.json").string()), UserError);
  std::ofstream(dir / "kind.json") << R"({"kind": "chaos"})";
  EXPECT_THROW(load_workload((dir / "kind.json").string()), UserError);
}

TEST(ServeArgs, PercentilesAreNearestRank) {
  EXPECT_EQ(percentile({}, 50), 0);
  EXPECT_EQ(percentile({3, 1, 2}, 50), 2);
  EXPECT_EQ(percentile({1, 2, 3, 4}, 99), 4);
  EXPECT_EQ(percentile({5}, 1), 5);
}

TEST(ServeOutput, TheTableAndSummaryComeFromTheServersTimings) {
  WorkloadRun run;
  run.workload.name = "b";
  run.workload.kind = "batch";
  CompletionResult cold;
  cold.task = "c1 doc 1";
  cold.ok = true;
  cold.prompt_tokens = 100;
  cold.generated = 10;
  cold.prompt_n = 100, cold.cache_n = 0, cold.predicted_n = 10;
  cold.prompt_ms = 500, cold.predicted_ms = 1000;
  CompletionResult warm = cold;
  warm.task = "c2 doc 1";
  warm.prompt_n = 20, warm.cache_n = 80;
  CompletionResult bad;
  bad.task = "c2 doc 2";
  bad.error = "HTTP 500";
  run.requests = {{cold, 1, {}}, {warm, 2, {}}, {bad, 2, {}}};
  run.levels = {{1, 10.0, 1, 0, 10}, {2, 5.0, 1, 1, 10}};
  std::string table = request_table(run);
  std::erase(table, ' ');
  // PP/TG/T_PP/T_TG from `timings`, N_KV = cache_n + PP + TG, S_PP = 100 / 0.5 s
  EXPECT_NE(table.find("|c1doc1|100|10|110|0.500|200.00|1.000|10.00|0|"), std::string::npos)
      << table;
  EXPECT_NE(table.find("|c2doc1|20|10|110|0.500|40.00|1.000|10.00|80|"), std::string::npos)
      << table;
  EXPECT_NE(table.find("FAILED:HTTP500"), std::string::npos) << table;
  const auto s = workload_summary(run);
  EXPECT_EQ(s["failed"], 1);
  EXPECT_DOUBLE_EQ(s["cache_hit_ratio"].get<double>(), 80.0 / 200);
  EXPECT_NE(summary_text(s).find("sweet spot: concurrency 2 (720 documents/hour)"),
            std::string::npos)
      << summary_text(s);
}

}  // namespace
}  // namespace moesweep
