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
  const auto args = llama_server_args(o, 1234);
  EXPECT_TRUE(contains_pair(args, "--parallel", "4"));
  EXPECT_TRUE(contains_pair(args, "-c", std::to_string(1536 * 4)));  // 1216+50+256 -> 1536
  EXPECT_TRUE(contains_pair(args, "--port", "1234"));
  EXPECT_TRUE(contains_pair(args, "--host", "127.0.0.1"));
  EXPECT_NE(std::find(args.begin(), args.end(), "--metrics"), args.end());
  o.server_args = {"-c", "8192", "--parallel", "2", "-fa", "on"};
  const auto given = llama_server_args(o, 1234);
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

}  // namespace
}  // namespace moesweep
