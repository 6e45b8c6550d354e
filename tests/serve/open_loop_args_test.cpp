// Open-loop workloads and flags without a server: the workload files (lengths,
// a shared prefix, a prompts file that must stay in its folder), the flags that
// do not go together, and the prompts made: exact lengths, a head of their own
// so that no two share a prefix unless the workload asks, the same lengths at
// every rate.
#include <gtest/gtest.h>

#include <fstream>

#include "serve/arrival_schedule.hpp"
#include "serve/open_loop_workload.hpp"
#include "serve/server_process.hpp"
#include "serve/traffic_prompts.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

Workload from_text(const std::filesystem::path& dir, const std::string& body) {
  std::ofstream(dir / "w.json") << body;
  return load_workload((dir / "w.json").string());
}

size_t common_prefix(const std::vector<int>& a, const std::vector<int>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

TEST(OpenLoopArgs, ShippedOpenLoopWorkloadsStateTheirCacheProtocol) {
  for (const char* name : {"open-loop", "open-loop-shared-prefix"}) {
    const Workload w = load_workload(name);
    ASSERT_TRUE(w.open_loop()) << name;
    const auto p = w.cache_protocol();
    for (const char* key : {"warmup", "flush", "prime", "measure"})
      EXPECT_TRUE(p.contains(key)) << name << " " << key;
    EXPECT_EQ(w.n_predict, w.output_len.max);
  }
  EXPECT_EQ(load_workload("open-loop-shared-prefix").shared_prefix_tokens, 512);
  for (const char* name : {"prompt-cache", "batch", "cold-start"})  // every kind states it
    EXPECT_TRUE(load_workload(name).cache_protocol().contains("flush")) << name;
}

TEST(OpenLoopArgs, BadOpenLoopWorkloadsAreRefused) {
  const auto dir = test::scratch_dir();
  for (const char* body :
       {R"({"kind": "open-loop", "prompt_tokens": {"dist": "normal", "min": 4, "max": 9}})",
        R"({"kind": "open-loop", "prompt_tokens": {"dist": "uniform", "min": 90, "max": 9}})",
        R"({"kind": "open-loop", "prompt_tokens": {"dist": "lognormal", "median": 64}})",
        R"({"kind": "open-loop", "prompt_tokens": 3})",
        R"({"kind": "open-loop", "prompt_tokens": 100, "shared_prefix_tokens": 100,
            "shared_prefix_share": 0.5})",
        R"({"kind": "open-loop", "shared_prefix_share": 1.5})",
        R"({"kind": "open-loop", "cache_protocol": {"flush": "sometimes"}})",
        R"({"kind": "open-loop", "prompts_file": "../elsewhere.jsonl"})",
        R"({"kind": "open-loop", "prompts_file": "/etc/hostname"})"})
    EXPECT_FALSE(test::refused([&] { from_text(dir, body); }).empty()) << body;
}

TEST(OpenLoopArgs, APromptsFileIsReadAndCheckedLineByLine) {
  const auto dir = test::scratch_dir();
  std::ofstream(dir / "p.jsonl") << R"({"prompt": [1, 2, 3], "output_tokens": 7})"
                                 << "\n"
                                 << R"({"prompt": [4, 5, 6, 7, 8]})"
                                 << "\n";
  const Workload w =
      from_text(dir, R"({"kind": "open-loop", "prompts_file": "p.jsonl", "output_tokens": 5})");
  ASSERT_TRUE(w.prompts);
  EXPECT_EQ(w.prompts->prompts.size(), 2u);
  EXPECT_EQ(w.max_prompt_tokens(), 5);
  EXPECT_EQ(w.n_predict, 7);  // the file's largest output wins over the workload's 5
  std::ofstream(dir / "p.jsonl") << R"({"prompt": [1, -2]})"
                                 << "\n";
  const std::string why =
      test::refused([&] { from_text(dir, R"({"kind": "open-loop", "prompts_file": "p.jsonl"})"); });
  EXPECT_NE(why.find("p.jsonl:1"), std::string::npos) << why;
}

TEST(OpenLoopArgs, FlagsThatDoNotGoTogetherAreRefused) {
  const std::vector<Workload> open = {load_workload("open-loop")};
  const std::vector<Workload> closed = {load_workload("prompt-cache")};
  TrafficOptions t;
  t.rates = {1};
  EXPECT_NO_THROW(check_traffic_options(t, open));
  EXPECT_NE(test::refused([&] { check_traffic_options(t, closed); }).find("no workload is open"),
            std::string::npos);
  EXPECT_NE(test::refused([&] { check_traffic_options({}, open); }).find("no rate"),
            std::string::npos);
  const auto refused = [&](auto edit) {
    TrafficOptions bad = t;
    edit(bad);
    return test::refused([&] { check_traffic_options(bad, open); });
  };
  EXPECT_NE(refused([](TrafficOptions& o) { o.find_capacity = true; }).find("without --slo"),
            std::string::npos);
  EXPECT_FALSE(refused([](TrafficOptions& o) { o.burstiness = 0; }).empty());
  EXPECT_FALSE(refused([](TrafficOptions& o) { o.max_concurrency = 100000; }).empty());
  EXPECT_FALSE(refused([](TrafficOptions& o) { o.num_requests = -1; }).empty());
  EXPECT_FALSE(refused([](TrafficOptions& o) {
                 o.rates = {kInfiniteRate};
                 o.duration_s = 10;
               }).empty());
  EXPECT_FALSE(refused([](TrafficOptions& o) {
                 o.find_capacity = true;
                 o.slos = parse_slos("ttft=1s");
                 o.rates = {1, 2};
               }).empty());
}

TEST(OpenLoopArgs, RequestsHaveExactLengthsAndNoSharedPrefixUnlessAsked) {
  const auto dir = test::scratch_dir();
  const Workload w = from_text(dir, R"({"kind": "open-loop", "seed": 3,
      "prompt_tokens": {"dist": "uniform", "min": 40, "max": 90}, "output_tokens": 8,
      "shared_prefix_tokens": 24, "shared_prefix_share": 0.5})");
  // No /tokenize (an OpenAI API): the prompts are word ids, made without a server.
  const ServeClient client({"127.0.0.1", free_loopback_port()}, 5, Api::kOpenAi);
  const TrafficPrompts prompts(w, client);
  std::vector<CompletionRequest> round1, round2;
  int shared = 0;
  for (size_t i = 0; i < 200; ++i) {
    round1.push_back(prompts.request(1, i));
    round2.push_back(prompts.request(2, i));
    EXPECT_EQ(round1[i].prompt.size(), size_t(w.prompt_len.draw(w.seed, i)));
    EXPECT_EQ(round1[i].prompt.size(), round2[i].prompt.size());  // the same at every rate
    shared += prompts.shares_prefix(i);
  }
  EXPECT_GT(shared, 70);  // about half
  EXPECT_LT(shared, 130);
  const auto prime = prompts.prime(1).prompt;
  EXPECT_EQ(prime.size(), 24u);
  for (size_t i = 0; i < 200; ++i) {
    EXPECT_NE(common_prefix(round1[i].prompt, round2[i].prompt), round1[i].prompt.size());
    if (prompts.shares_prefix(i)) {
      EXPECT_EQ(common_prefix(prime, round1[i].prompt), 24u);
    }
    for (size_t k = 0; k < i; ++k) {
      const bool both = prompts.shares_prefix(i) && prompts.shares_prefix(k);
      const size_t lcp = common_prefix(round1[i].prompt, round1[k].prompt);
      EXPECT_LT(lcp, (both ? 24u : 0u) + kRequestHeadTokens) << i << " " << k;
    }
  }
  // Each rate's shared prefix is its own: the next rate's does not find it cached.
  EXPECT_LT(common_prefix(prime, prompts.prime(2).prompt), size_t(kRequestHeadTokens));
}

}  // namespace
}  // namespace moesweep
