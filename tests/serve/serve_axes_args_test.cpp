// Server-level axes and the OpenAI stream reading, without a server.
#include <gtest/gtest.h>

#include <algorithm>

#include "serve/prompt_pool.hpp"
#include "serve/serve_bench.hpp"
#include "serve/serve_openai.hpp"
#include "serve/server_config.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(ServeAxes, EveryCombinationIsOneConfigurationWithAShortLabel) {
  const auto axes = parse_server_axes({{"threads", "1-2"}, {"parallel", "1,4"}});
  const auto configs = server_configs(axes);
  std::vector<std::string> labels;
  for (const auto& c : configs) labels.push_back(c.label());
  EXPECT_EQ(labels, (std::vector<std::string>{"t=1 np=1", "t=1 np=4", "t=2 np=1", "t=2 np=4"}));
  ASSERT_EQ(server_configs({}).size(), 1u);
  EXPECT_EQ(server_configs({})[0].label(), "default");
}

TEST(ServeAxes, ValuesAreCheckedAsTheSweepChecksThem) {
  EXPECT_THROW(parse_server_axes({{"threads", "0"}}), UserError);
  EXPECT_THROW(parse_server_axes({{"ctx-size", "abc"}}), UserError);
  EXPECT_THROW(parse_server_axes({{"parallel", "0"}}), UserError);
  EXPECT_EQ(parse_server_axes({{"cache-ram", "-1,0,256"}})["cache-ram"],
            (std::vector<int>{-1, 0, 256}));
}

TEST(ServeAxes, TheServerGetsEachAxisValueAndTheRecordSaysWhatItGot) {
  ServeBenchOptions o;
  o.gguf = "m.gguf";
  Workload w;
  w.kind = "batch";
  o.workloads = {w};
  ServerConfig c;
  c.values = {{"threads", 2}, {"ctx-size", 4096}, {"parallel", 3}, {"cache-ram", 0}};
  const auto args = llama_server_args(o, c, 1234);
  EXPECT_EQ(std::count(args.begin(), args.end(), "-c"), 1);
  EXPECT_EQ(std::count(args.begin(), args.end(), "--parallel"), 1);
  const auto got = server_settings(args);
  EXPECT_EQ(
      got, (nlohmann::json{{"threads", 2}, {"ctx-size", 4096}, {"parallel", 3}, {"cache-ram", 0}}));
  EXPECT_TRUE(server_settings({"--parallel", "2"})["threads"].is_null());
}

TEST(ServeAxes, AnAxisAlsoGivenAfterTheDoubleDashIsRefused) {
  const auto axes = parse_server_axes({{"threads", "1,2"}});
  EXPECT_NO_THROW(check_axes_against_passthrough(axes, {"-tb", "2", "-c", "4096"}));
  EXPECT_THROW(check_axes_against_passthrough(axes, {"-t", "4"}), UserError);
  EXPECT_THROW(check_axes_against_passthrough(axes, {"--threads=4"}), UserError);
  ServeBenchOptions o;
  o.url = "http://127.0.0.1:8080";
  o.axes = axes;
  EXPECT_THROW(check_serve_bench_options(o), UserError);
  o.axes.clear();
  o.api = "grpc";
  EXPECT_THROW(check_serve_bench_options(o), UserError);
}

TEST(ServeOpenAi, StreamEventsGiveTokensUsageAndCachedTokens) {
  CompletionResult r;
  EXPECT_EQ(
      openai_event_tokens(nlohmann::json::parse(R"({"choices":[{"text":"hi"}]})"), Api::kOpenAi, r),
      1);
  EXPECT_EQ(openai_event_tokens(nlohmann::json::parse(R"({"choices":[{"delta":{"content":"x"}}]})"),
                                Api::kOpenAiChat, r),
            1);
  EXPECT_EQ(openai_event_tokens(nlohmann::json::parse(R"({"choices":[{"delta":{}}]})"),
                                Api::kOpenAiChat, r),
            0);
  EXPECT_EQ(openai_event_tokens(nlohmann::json::parse(
                                    R"({"choices":[],"usage":{"prompt_tokens":40,
                                     "completion_tokens":8,
                                     "prompt_tokens_details":{"cached_tokens":32}}})"),
                                Api::kOpenAi, r),
            0);
  EXPECT_EQ(r.usage_prompt_tokens, 40);
  EXPECT_EQ(r.usage_completion_tokens, 8);
  EXPECT_EQ(r.cache_n, 32);
  CompletionRequest req;
  req.n_predict = 7;
  const auto body = openai_body(req, "a b", Api::kOpenAiChat, "m");
  EXPECT_EQ(body["messages"][0]["content"], "a b");
  EXPECT_EQ(body["max_tokens"], 7);
  EXPECT_TRUE(body["stream_options"]["include_usage"].get<bool>());
  EXPECT_EQ(prompt_words_text({0, 1, 2}), "the of and");
}

}  // namespace
}  // namespace moesweep
