// The server-sent event stream of a completion (serve/sse_stream.hpp), fed by
// hand: events split wherever the bytes break, "[DONE]" and non-JSON payloads
// skipped, tokens and the server's timings taken, and a stream that breaks
// the rules (an error event, a mistyped count, more tokens than asked) ends
// the request with a message instead of an exception.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "serve/sse_stream.hpp"

namespace moesweep {
namespace {

std::vector<nlohmann::json> events_of(const std::vector<std::string>& chunks) {
  SseParser parser;
  std::vector<nlohmann::json> out;
  for (const std::string& c : chunks)
    parser.feed(c.data(), c.size(), [&](const nlohmann::json& ev) { out.push_back(ev); });
  return out;
}

TEST(SseParser, EventsSplitAnywhereComeOutWhole) {
  const std::string stream = "data: {\"a\": 1}\n\ndata: {\"a\": 2}\n\ndata: [DONE]\n\n";
  const std::vector<nlohmann::json> whole = events_of({stream});
  ASSERT_EQ(whole.size(), 2u);
  EXPECT_EQ(whole[0]["a"], 1);
  EXPECT_EQ(whole[1]["a"], 2);
  for (size_t cut = 1; cut < stream.size(); ++cut)  // every place one read can end
    EXPECT_EQ(events_of({stream.substr(0, cut), stream.substr(cut)}), whole) << cut;
}

TEST(SseParser, PayloadsThatAreNotJsonAreDiscardedAndOtherLinesSkipped) {
  const std::vector<nlohmann::json> events =
      events_of({": a comment\n\ndata: {not json\n\nevent: x\n\ndata: {\"ok\": true}\n\n"});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[0].is_discarded());
  EXPECT_EQ(events[1]["ok"], true);
}

TEST(SseParser, AnEventThatNeverEndsStopsAtTheCap) {
  SseParser parser;
  const std::string mib(1u << 20, 'x');
  int events = 0;
  parser.feed("data: ", 6, [&](const nlohmann::json&) { ++events; });
  for (int i = 0; i <= 16 && !parser.overflowed(); ++i)
    parser.feed(mib.data(), mib.size(), [&](const nlohmann::json&) { ++events; });
  EXPECT_TRUE(parser.overflowed());
  EXPECT_EQ(events, 0);
}

TEST(EventFields, CountsAndTimesAreCheckedNotNarrowed) {
  const nlohmann::json t = {{"n", 12},   {"none", nullptr}, {"big", 4294967297LL},
                            {"neg", -2}, {"text", "12"},    {"ms", 3.5}};
  EXPECT_EQ(event_count(t, "n", -1), 12);
  EXPECT_EQ(event_count(t, "none", -1), -1);
  EXPECT_EQ(event_count(t, "absent", 7), 7);
  EXPECT_THROW(event_count(t, "big", -1), std::invalid_argument);  // 2^32 + 1 is not 1
  EXPECT_THROW(event_count(t, "neg", -1), std::invalid_argument);
  EXPECT_THROW(event_count(t, "text", -1), std::invalid_argument);
  EXPECT_DOUBLE_EQ(event_ms(t, "ms", -1), 3.5);
  EXPECT_DOUBLE_EQ(event_ms(t, "absent", -1), -1);
  EXPECT_THROW(event_ms(t, "text", -1), std::invalid_argument);
}

bool feed(CompletionStream& s, const std::string& text) {
  return s.feed(text.data(), text.size());
}

TEST(CompletionStream, TokensAndTheServersTimingsAreTaken) {
  CompletionResult r;
  CompletionStream stream(Api::kLlama, 4, r);
  EXPECT_TRUE(feed(stream, "data: {\"tokens\": [11, 12], \"content\": \"ab\"}\n\n"));
  EXPECT_TRUE(feed(stream, "data: {\"tokens\": [13]}\n\ndata: {\"content\": \"d\"}\n\n"));
  EXPECT_TRUE(feed(stream,
                   "data: {\"content\": \"\", \"timings\": {\"prompt_n\": 64, \"cache_n\": 1024, "
                   "\"predicted_n\": 4, \"prompt_ms\": 80.5, \"predicted_ms\": 40}}\n\n"));
  EXPECT_TRUE(stream.error().empty()) << stream.error();
  EXPECT_EQ(r.generated, 4);  // two ids, one id, one text piece without ids
  EXPECT_EQ(r.tokens, (std::vector<int>{11, 12, 13}));
  EXPECT_EQ(r.itl_ms.size(), 2u);  // one gap per event after the first
  EXPECT_GE(r.ttft_ms, 0);
  EXPECT_EQ(r.prompt_n, 64);
  EXPECT_EQ(r.cache_n, 1024);
  EXPECT_EQ(r.predicted_n, 4);
  EXPECT_DOUBLE_EQ(r.prompt_ms, 80.5);
  EXPECT_DOUBLE_EQ(r.predicted_ms, 40);
}

TEST(CompletionStream, AnErrorEventEndsTheRequestWithTheServersWords) {
  CompletionResult r;
  CompletionStream stream(Api::kLlama, 4, r);
  EXPECT_FALSE(feed(stream, "data: {\"error\": {\"message\": \"slot unavailable\"}}\n\n"));
  EXPECT_NE(stream.error().find("slot unavailable"), std::string::npos) << stream.error();
}

TEST(CompletionStream, AMistypedFieldIsAMessageNotAnException) {
  CompletionResult r;
  CompletionStream stream(Api::kLlama, 4, r);
  EXPECT_FALSE(feed(stream, "data: {\"tokens\": [\"eleven\"]}\n\n"));
  EXPECT_NE(stream.error().find("cannot read"), std::string::npos) << stream.error();
  CompletionResult t;
  CompletionStream timings(Api::kLlama, 4, t);
  EXPECT_FALSE(feed(timings, "data: {\"timings\": {\"cache_n\": 1e300}}\n\n"));
  EXPECT_NE(timings.error().find("'cache_n' is no count"), std::string::npos) << timings.error();
}

TEST(CompletionStream, MoreTokensThanAskedForEndTheRequest) {
  CompletionResult r;
  CompletionStream stream(Api::kLlama, 2, r);
  std::string many = "data: {\"tokens\": [";
  for (int i = 0; i < 11; ++i) many += (i ? ", " : "") + std::to_string(i);
  EXPECT_FALSE(feed(stream, many + "]}\n\n"));
  EXPECT_NE(stream.error().find("the server sent 11 tokens for n_predict 2"), std::string::npos)
      << stream.error();
}

}  // namespace
}  // namespace moesweep
