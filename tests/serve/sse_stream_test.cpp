// The server-sent event stream of a completion (serve/sse_parser.hpp,
// serve/sse_stream.hpp), fed by hand: events split wherever the bytes break,
// tokens and the server's timings taken, and a stream that breaks the rules
// (an error event, an event that is no JSON, a mistyped count, more tokens
// than asked, no final event, fewer tokens than asked) ends the request with
// a message instead of an exception or a good answer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "serve/sse_stream.hpp"

namespace moesweep {
namespace {

std::vector<std::string> events_of(const std::vector<std::string>& chunks) {
  SseParser parser;
  std::vector<std::string> out;
  for (const std::string& c : chunks)
    parser.feed(c.data(), c.size(), [&](std::string_view data) { out.emplace_back(data); });
  return out;
}

TEST(SseParser, EventsSplitAnywhereComeOutWhole) {
  const std::string stream = "data: {\"a\": 1}\n\ndata: {\"a\": 2}\n\ndata: [DONE]\n\n";
  const std::vector<std::string> whole = events_of({stream});
  EXPECT_EQ(whole, (std::vector<std::string>{"{\"a\": 1}", "{\"a\": 2}", "[DONE]"}));
  for (size_t cut = 1; cut < stream.size(); ++cut)  // every place one read can end
    EXPECT_EQ(events_of({stream.substr(0, cut), stream.substr(cut)}), whole) << cut;
}

// The format's rules (WHATWG server-sent events): any line ending, data
// lines joined, comments and other fields passed over, "data:" with or
// without its space, and an event the stream cut off never dispatched.
TEST(SseParser, LinesEndAnyWayAndOnlyDataMakesAnEvent) {
  const std::string crlf = ": ping\r\n\r\nevent: message\r\ndata: {\"a\":\r\ndata:1}\r\n\r\n";
  const std::vector<std::string> want = {"{\"a\":\n1}"};
  EXPECT_EQ(events_of({crlf}), want);
  for (size_t cut = 1; cut < crlf.size(); ++cut)  // a "\r\n" split between reads too
    EXPECT_EQ(events_of({crlf.substr(0, cut), crlf.substr(cut)}), want) << cut;
  EXPECT_EQ(events_of({"data: x\r\rdata: y\n\n"}), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(events_of({"event: x\n\nid: 3\n\n"}), std::vector<std::string>{});
  EXPECT_EQ(events_of({"data: {\"cut\": true}\n"}), std::vector<std::string>{});
}

TEST(SseParser, AnEventThatNeverEndsStopsAtTheCap) {
  SseParser parser;
  const std::string mib(1u << 20, 'x');
  int events = 0;
  parser.feed("data: ", 6, [&](std::string_view) { ++events; });
  for (int i = 0; i <= 16 && !parser.overflowed(); ++i)
    parser.feed(mib.data(), mib.size(), [&](std::string_view) { ++events; });
  EXPECT_TRUE(parser.overflowed());
  EXPECT_EQ(events, 0);
  SseParser lines;  // many short data lines of one event count together
  const std::string line = "data: " + std::string(1u << 16, 'y') + "\n";
  for (int i = 0; i < 300 && !lines.overflowed(); ++i)
    lines.feed(line.data(), line.size(), [&](std::string_view) { ++events; });
  EXPECT_TRUE(lines.overflowed());
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
                   "data: {\"content\": \"\", \"stop\": true, \"stop_type\": \"limit\", "
                   "\"timings\": {\"prompt_n\": 64, \"cache_n\": 1024, \"predicted_n\": 4, "
                   "\"prompt_ms\": 80.5, \"predicted_ms\": 40}}\n\n"));
  EXPECT_TRUE(stream.error().empty()) << stream.error();
  EXPECT_EQ(stream.finish(), "");
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

// Issue 44, items 1 and 14: a stream that ended early counted as good, and an
// unreadable event was "the stream carried no tokens".
std::string finished(Api api, int n_predict, const std::string& text, CompletionResult& r) {
  CompletionStream stream(api, n_predict, r);
  if (!feed(stream, text)) return "failed: " + stream.error();
  return stream.finish();
}

TEST(CompletionStream, OnlyAStreamEndedByItsProtocolWithItsTokensIsGood) {
  const std::string two = "data: {\"content\": \"a\"}\n\ndata: {\"content\": \"b\"}\n\n";
  const std::string chunks =
      "data: {\"choices\": [{\"text\": \"a\"}]}\n\n"
      "data: {\"choices\": [{\"text\": \"b\"}]}\n\n";
  struct Case {
    Api api;
    int n_predict;
    std::string stream, why, stop_reason;  // why: "" = good, else a part of the message
  };
  const Case cases[] = {
      // /completion: "stop": true ends it; without it, it was cut short.
      {Api::kLlama, 2, two, "without its final event", ""},
      {Api::kLlama, 2, two + "data: {\"stop\": true}\n\n", "", ""},
      {Api::kLlama, 2, two + "data: [DONE]\n\n", "without its final event", ""},
      // ...and carries the tokens asked for, or says why it stopped.
      {Api::kLlama, 32,
       "data: {\"content\": \"a\"}\n\ndata: {\"stop\": true, \"stop_type\": \"eos\"}\n\n",
       "the server stopped after 1 of 32 tokens (stop_type eos)", "eos"},
      {Api::kLlama, 32, "data: {\"content\": \"a\", \"stop\": true}\n\n",
       "the server ended the stream after 1 of 32 tokens without saying why", "none given"},
      // The server's own count stands for tokens whose text came together.
      {Api::kLlama, 3,
       "data: {\"content\": \"ab\", \"stop\": true, \"stop_type\": \"limit\", \"timings\": "
       "{\"predicted_n\": 3}}\n\n",
       "", ""},
      // The OpenAI APIs: a finish_reason, or [DONE].
      {Api::kOpenAi, 2, chunks, "without its final event", ""},
      {Api::kOpenAi, 2, chunks + "data: [DONE]\n\n", "", ""},
      {Api::kOpenAi, 2,
       chunks + "data: {\"choices\": [{\"text\": \"\", \"finish_reason\": \"length\"}]}\n\n", "",
       ""},
      {Api::kOpenAi, 32,
       "data: {\"choices\": [{\"text\": \"a\", \"finish_reason\": \"stop\"}]}\n\ndata: [DONE]\n\n",
       "the server stopped after 1 of 32 tokens (finish_reason stop)", "stop"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.stream);
    CompletionResult r;
    const std::string why = finished(c.api, c.n_predict, c.stream, r);
    if (c.why.empty())
      EXPECT_EQ(why, "");
    else
      EXPECT_NE(why.find(c.why), std::string::npos) << why;
    EXPECT_EQ(r.stop_reason, c.stop_reason);
  }
}

TEST(CompletionStream, AnEventThatIsNoJsonIsUnreadableDataNotNoTokens) {
  CompletionResult r;
  const std::string why =
      finished(Api::kLlama, 2, "data: {\"content\": \"a\"}\n\ndata: \x01garbage{\n\n", r);
  EXPECT_NE(why.find("failed: the server sent unreadable data"), std::string::npos) << why;
  EXPECT_NE(why.find("?garbage{"), std::string::npos) << why;  // quoted, printable
  EXPECT_NE(finished(Api::kOpenAi, 2, "data: 7\n\n", r).find("no JSON object"), std::string::npos);
  EXPECT_NE(finished(Api::kLlama, 2, "data: {\"stop\": \"yes\"}\n\n", r).find("cannot read"),
            std::string::npos);
  EXPECT_NE(finished(Api::kOpenAiChat, 2,
                     "data: {\"choices\": [{\"delta\": {}, \"finish_reason\": 3}]}\n\n", r)
                .find("cannot read"),
            std::string::npos);
}

}  // namespace
}  // namespace moesweep
