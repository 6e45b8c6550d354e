#include "serve/sse_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "serve/serve_openai.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

// An OpenAI server's final usage event may count a token again.
constexpr int kExtraTokens = 8;
constexpr size_t kQuoteBytes = 200;  // of a server's bytes in a message

double ms_between(CompletionStream::Clock::time_point a, CompletionStream::Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// A server's bytes as message text: printable ASCII, the rest '?', at most `max`.
std::string printable(std::string_view bytes, size_t max = kQuoteBytes) {
  std::string out;
  for (char c : bytes.substr(0, max)) out += c >= 0x20 && c < 0x7f ? c : '?';
  if (bytes.size() > max) out += "...";
  return out;
}

// The server's per-request figures from the last event's `timings`.
void take_timings(const nlohmann::json& ev, CompletionResult& r) {
  if (!ev.contains("timings") || !ev["timings"].is_object()) return;
  const auto& t = ev["timings"];
  r.prompt_n = event_count(t, "prompt_n", -1);
  r.predicted_n = event_count(t, "predicted_n", -1);
  r.cache_n = event_count(t, "cache_n", -1);
  r.prompt_ms = event_ms(t, "prompt_ms", -1.0);
  r.predicted_ms = event_ms(t, "predicted_ms", -1.0);
}

// Tokens one /completion event carries (their ids kept for multi-turn).
int native_event_tokens(const nlohmann::json& ev, CompletionResult& r) {
  if (ev.contains("tokens") && ev["tokens"].is_array() && !ev["tokens"].empty()) {
    for (const auto& t : ev["tokens"]) {
      if (!t.is_number_integer() || t.get<int64_t>() < 0 ||
          t.get<int64_t>() > std::numeric_limits<int32_t>::max())
        throw std::invalid_argument("a token id that is no integer from 0 to 2^31-1");
      r.tokens.push_back(static_cast<int>(t.get<int64_t>()));
    }
    return static_cast<int>(ev["tokens"].size());
  }
  if (ev.contains("content") && !ev["content"].is_null() && !ev["content"].is_string())
    throw std::invalid_argument("a 'content' that is no text");
  return ev.contains("content") && ev["content"].is_string() &&
                 !ev["content"].get<std::string>().empty()
             ? 1
             : 0;
}

// Why a /completion stream stopped: "stop_type" (limit, eos, word), or the
// flags older servers sent; "" when the event says nothing.
std::string native_stop_type(const nlohmann::json& ev) {
  if (ev.contains("stop_type") && !ev["stop_type"].is_null()) {
    if (!ev["stop_type"].is_string()) throw std::invalid_argument("a 'stop_type' that is no text");
    return printable(ev["stop_type"].get<std::string>(), 40);
  }
  for (const auto& [flag, reason] :
       {std::pair{"stopped_eos", "eos"}, {"stopped_word", "word"}, {"stopped_limit", "limit"}})
    if (ev.contains(flag) && ev[flag].is_boolean() && ev[flag].get<bool>()) return reason;
  return "";
}

// What ends a complete answer of `api`, for messages.
const char* final_event(Api api) {
  return api == Api::kLlama ? "an event with \"stop\": true"
                            : "a \"finish_reason\" or \"data: [DONE]\"";
}

}  // namespace

int event_count(const nlohmann::json& obj, const char* key, int fallback) {
  if (!obj.contains(key) || obj[key].is_null()) return fallback;
  const nlohmann::json& v = obj[key];
  if (!v.is_number_integer() || v.get<int64_t>() < -1 ||
      v.get<int64_t>() > std::numeric_limits<int32_t>::max() ||
      (v.is_number_unsigned() && v.get<uint64_t>() > std::numeric_limits<int32_t>::max()))
    throw std::invalid_argument(fmt::format("'{}' is no count from -1 to 2^31-1", key));
  return static_cast<int>(v.get<int64_t>());
}

double event_ms(const nlohmann::json& obj, const char* key, double fallback) {
  if (!obj.contains(key) || obj[key].is_null()) return fallback;
  const nlohmann::json& v = obj[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw std::invalid_argument(fmt::format("'{}' is no number", key));
  return v.get<double>();
}

CompletionStream::CompletionStream(Api api, int n_predict, CompletionResult& r, bool token_times)
    : api_(api), n_predict_(n_predict), r_(r), token_times_(token_times), t0_(Clock::now()) {}

bool CompletionStream::feed(const char* data, size_t len) {
  const auto now = Clock::now();
  sse_.feed(data, len, [&](std::string_view event) { take(event, now); });
  if (sse_.overflowed() && error_.empty())
    error_ = fmt::format("the server sent over {} MiB without ending an event",
                         SseParser::kMaxEventBytes >> 20);
  // ignore_eos asks for exactly n_predict: a stream past it never ends by itself.
  if (r_.generated > n_predict_ + kExtraTokens && error_.empty())
    error_ = fmt::format("the server sent {} tokens for n_predict {}", r_.generated, n_predict_);
  return error_.empty();
}

void CompletionStream::take(std::string_view data, Clock::time_point now) {
  if (!error_.empty()) return;
  if (data == "[DONE]") {  // the OpenAI APIs' end of the stream
    ended_ = ended_ || api_ != Api::kLlama;
    return;
  }
  const nlohmann::json ev = parse_json_or_discarded(data);
  if (!ev.is_object()) {
    error_ = fmt::format("the server sent unreadable data: an event that is no JSON object: {}",
                         printable(data));
    return;
  }
  try {
    if (ev.contains("error"))
      error_ = "the server reported an error: " +
               ev["error"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    take_tokens(ev, now);
    take_timings(ev, r_);
    take_end(ev);
  } catch (const std::exception& e) {  // nlohmann's type errors and the checks above
    error_ = fmt::format("the server sent an event this client cannot read ({}): {:.200}", e.what(),
                         ev.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

void CompletionStream::take_tokens(const nlohmann::json& ev, Clock::time_point now) {
  const int n =
      api_ == Api::kLlama ? native_event_tokens(ev, r_) : openai_event_tokens(ev, api_, r_);
  if (n <= 0) return;
  if (r_.generated == 0)
    r_.ttft_ms = ms_between(t0_, now);
  else
    r_.itl_ms.push_back(ms_between(last_, now));
  last_ = now;
  r_.generated += n;
  if (token_times_) r_.token_ms.insert(r_.token_ms.end(), n, ms_between(t0_, now));
}

void CompletionStream::take_end(const nlohmann::json& ev) {
  if (api_ == Api::kLlama) {
    if (!ev.contains("stop") || ev["stop"].is_null()) return;
    if (!ev["stop"].is_boolean()) throw std::invalid_argument("a 'stop' that is no true or false");
    if (!ev["stop"].get<bool>()) return;
    ended_ = true;
    stop_reason_ = native_stop_type(ev);
    return;
  }
  if (!ev.contains("choices") || !ev["choices"].is_array() || ev["choices"].empty()) return;
  const nlohmann::json& c = ev["choices"][0];
  if (!c.is_object() || !c.contains("finish_reason") || c["finish_reason"].is_null()) return;
  if (!c["finish_reason"].is_string())
    throw std::invalid_argument("a 'finish_reason' that is no text");
  ended_ = true;
  stop_reason_ = printable(c["finish_reason"].get<std::string>(), 40);
}

int CompletionStream::tokens_done() const {
  // A token whose text is not yet whole UTF-8 may be sent with the next one:
  // the server's own count, when larger, is the one it generated.
  return std::max(r_.generated, api_ == Api::kLlama ? r_.predicted_n : r_.usage_completion_tokens);
}

std::string CompletionStream::finish() {
  if (!ended_)
    return fmt::format(
        "the stream ended after {} of {} tokens without its final event ({}): the server cut "
        "it short",
        r_.generated, n_predict_, final_event(api_));
  if (tokens_done() >= n_predict_) return "";
  r_.stop_reason = stop_reason_.empty() ? "none given" : stop_reason_;
  if (stop_reason_.empty())
    return fmt::format("the server ended the stream after {} of {} tokens without saying why",
                       tokens_done(), n_predict_);
  return fmt::format("the server stopped after {} of {} tokens ({} {})", tokens_done(), n_predict_,
                     api_ == Api::kLlama ? "stop_type" : "finish_reason", stop_reason_);
}

}  // namespace moesweep
