#pragma once
// A completion's server-sent event stream, read as it arrives: split into
// events (bounded: an event that never ends stops the request), each event's
// JSON taken on the client's clock (tokens, timings, usage, an error). The
// server's answers are input like any file: a field of the wrong type or
// range fails the request with a message, never an exception through the
// HTTP library, and no count is narrowed.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "serve/serve_client.hpp"
#include "util/json_file.hpp"

namespace moesweep {

// Splits a byte stream into SSE events ("data: ...\n\n"); on_event gets each
// data payload's JSON (discarded when it is not JSON; "[DONE]" is skipped).
class SseParser {
 public:
  // An event longer than this is no completion event: a server that never
  // ends one would otherwise grow the buffer for the whole request timeout.
  static constexpr size_t kMaxEventBytes = 16u << 20;
  bool overflowed() const { return buf_.size() > kMaxEventBytes; }

  template <typename F>
  void feed(const char* data, size_t len, F&& on_event) {
    if (overflowed()) return;
    buf_.append(data, len);
    // Searched from where the last feed stopped (less one byte: a "\n" may
    // end it), so each byte is looked at about once however long an event is.
    size_t start = 0, from = scanned_ > 0 ? scanned_ - 1 : 0, end;
    while ((end = buf_.find("\n\n", from)) != std::string::npos) {
      const std::string_view text = std::string_view(buf_).substr(start, end - start);
      if (text.substr(0, 6) == "data: " && text.substr(6) != "[DONE]")
        on_event(parse_json_or_discarded(text.substr(6)));
      start = from = end + 2;
    }
    buf_.erase(0, start);
    scanned_ = buf_.size();
  }

 private:
  std::string buf_;
  size_t scanned_ = 0;  // bytes of buf_ already searched for the end of an event
};

// One streamed completion's state: events in, CompletionResult filled.
class CompletionStream {
 public:
  using Clock = std::chrono::steady_clock;
  // token_times: every token's arrival kept in r.token_ms.
  CompletionStream(Api api, int n_predict, CompletionResult& r, bool token_times = false);
  // Bytes as they arrive; false once the request has failed (an error event,
  // an unreadable event, an event past the cap, more tokens than asked for).
  bool feed(const char* data, size_t len);
  const std::string& error() const { return error_; }
  Clock::time_point started() const { return t0_; }

 private:
  void take(const nlohmann::json& ev, Clock::time_point now);
  Api api_;
  int n_predict_;
  CompletionResult& r_;
  bool token_times_;
  SseParser sse_;
  Clock::time_point t0_, last_{};
  std::string error_;
};

// A count in an event (prompt_n, cached_tokens...): fallback when absent or
// null; std::invalid_argument unless an integer from -1 to 2^31-1.
int event_count(const nlohmann::json& obj, const char* key, int fallback);
// A time in an event: fallback when absent or null; std::invalid_argument
// unless a finite number.
double event_ms(const nlohmann::json& obj, const char* key, double fallback);

}  // namespace moesweep
