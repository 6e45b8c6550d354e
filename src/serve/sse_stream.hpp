#pragma once
// One streamed completion, read as it arrives: its server-sent events
// (serve/sse_parser.hpp), each taken on the client's clock (tokens, timings,
// usage, an error), then judged when the exchange ends. The server's answers
// are input like any file: a field of the wrong type or range, or an event
// that is no JSON, fails the request with a message, never an exception
// through the HTTP library, and no count is narrowed.
//
// A request is good only when its stream ended the way its protocol ends a
// complete answer and carried the tokens asked for:
//  - llama-server's /completion: an event with "stop": true (its
//    "stop_type" says why: limit, eos, word);
//  - the OpenAI APIs: a choice with a "finish_reason" (length, stop, ...)
//    and/or "data: [DONE]".
// A stream that ends without that final event was cut short; one that ends
// it with fewer tokens than asked was stopped by the server, for the reason
// it gave (kept as CompletionResult::stop_reason and counted under it).
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "serve/serve_client.hpp"
#include "serve/sse_parser.hpp"

namespace moesweep {

class CompletionStream {
 public:
  using Clock = std::chrono::steady_clock;
  // token_times: every token's arrival kept in r.token_ms.
  CompletionStream(Api api, int n_predict, CompletionResult& r, bool token_times = false);
  // Bytes as they arrive; false once the request has failed (an error event,
  // an unreadable event, an event past the cap, more tokens than asked for).
  bool feed(const char* data, size_t len);
  const std::string& error() const { return error_; }
  // Once the exchange is over: "" when the stream ended as its protocol ends
  // a complete answer with the tokens asked for, else why not (and
  // r.stop_reason, when the server ended it early with a reason).
  std::string finish();
  Clock::time_point started() const { return t0_; }

 private:
  void take(std::string_view data, Clock::time_point now);
  void take_tokens(const nlohmann::json& ev, Clock::time_point now);
  void take_end(const nlohmann::json& ev);
  int tokens_done() const;  // the stream's count, or the server's own when larger
  Api api_;
  int n_predict_;
  CompletionResult& r_;
  bool token_times_;
  SseParser sse_;
  Clock::time_point t0_, last_{};
  std::string error_;
  bool ended_ = false;       // the protocol's final event (or [DONE]) arrived
  std::string stop_reason_;  // the server's stop_type / finish_reason ("" when it gave none)
};

// A count in an event (prompt_n, cached_tokens...): fallback when absent or
// null; std::invalid_argument unless an integer from -1 to 2^31-1.
int event_count(const nlohmann::json& obj, const char* key, int fallback);
// A time in an event: fallback when absent or null; std::invalid_argument
// unless a finite number.
double event_ms(const nlohmann::json& obj, const char* key, double fallback);

}  // namespace moesweep
