// The serve client's event parser (serve/sse_stream.hpp): any bytes as a
// completion stream, cut into pieces where the first byte says, for each API.
// It must never throw: a bad server fails the request, with a message.
#include <cstdint>

#include "serve/sse_stream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  if (size < 1) return 0;
  const size_t piece = 1 + data[0] % 64;
  for (Api api : {Api::kLlama, Api::kOpenAi, Api::kOpenAiChat}) {
    CompletionResult r;
    CompletionStream stream(api, 32, r);
    for (size_t at = 1; at < size; at += piece)
      if (!stream.feed(reinterpret_cast<const char*>(data) + at, std::min(piece, size - at))) break;
    if (r.generated < 0) __builtin_trap();
  }
  return 0;
}
