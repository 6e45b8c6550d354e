// The serve client's event stream (serve/sse_parser.hpp, serve/sse_stream.hpp):
// any bytes as a completion stream, cut into pieces where the first byte
// says, for each API, then judged as the exchange's end judges it. It must
// never throw, never count tokens below zero, and never call a stream good
// that did not end with the tokens asked for; a bad server fails the
// request, with a message.
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "serve/sse_stream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  if (size < 1) return 0;
  const size_t piece = 1 + data[0] % 64;
  const int n_predict = 1 + data[0] % 4;
  for (Api api : {Api::kLlama, Api::kOpenAi, Api::kOpenAiChat}) {
    CompletionResult r;
    CompletionStream stream(api, n_predict, r);
    bool failed = false;
    for (size_t at = 1; at < size && !failed; at += piece)
      failed = !stream.feed(reinterpret_cast<const char*>(data) + at, std::min(piece, size - at));
    if (r.generated < 0) __builtin_trap();
    if (failed) continue;
    const std::string why = stream.finish();
    const int server = api == Api::kLlama ? r.predicted_n : r.usage_completion_tokens;
    if (why.empty() && std::max(r.generated, server) < n_predict) __builtin_trap();
  }
  // The parser alone: every event it gives is within its cap.
  SseParser parser;
  parser.feed(reinterpret_cast<const char*>(data), size, [](std::string_view event) {
    if (event.size() > SseParser::kMaxEventBytes) __builtin_trap();
  });
  return 0;
}
