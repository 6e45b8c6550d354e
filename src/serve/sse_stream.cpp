#include "serve/sse_stream.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "serve/serve_openai.hpp"

namespace moesweep {
namespace {

// An OpenAI server's final usage event may count a token again.
constexpr int kExtraTokens = 8;

double ms_between(CompletionStream::Clock::time_point a, CompletionStream::Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
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
  sse_.feed(data, len, [&](const nlohmann::json& ev) { take(ev, now); });
  if (sse_.overflowed() && error_.empty())
    error_ = fmt::format("the server sent over {} MiB without ending an event",
                         SseParser::kMaxEventBytes >> 20);
  // ignore_eos asks for exactly n_predict: a stream past it never ends by itself.
  if (r_.generated > n_predict_ + kExtraTokens && error_.empty())
    error_ = fmt::format("the server sent {} tokens for n_predict {}", r_.generated, n_predict_);
  return error_.empty();
}

void CompletionStream::take(const nlohmann::json& ev, Clock::time_point now) {
  if (!ev.is_object() || !error_.empty()) return;
  try {
    if (ev.contains("error")) error_ = ev["error"].dump();
    const int n =
        api_ == Api::kLlama ? native_event_tokens(ev, r_) : openai_event_tokens(ev, api_, r_);
    if (n > 0) {
      if (r_.generated == 0)
        r_.ttft_ms = ms_between(t0_, now);
      else
        r_.itl_ms.push_back(ms_between(last_, now));
      last_ = now;
      r_.generated += n;
      if (token_times_) r_.token_ms.insert(r_.token_ms.end(), n, ms_between(t0_, now));
    }
    take_timings(ev, r_);
  } catch (const std::exception& e) {  // nlohmann's type errors and the checks above
    error_ = fmt::format("the server sent an event this client cannot read ({}): {:.200}", e.what(),
                         ev.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

}  // namespace moesweep
