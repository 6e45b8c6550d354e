// Routing traces (analysis/routing_trace.hpp): the input parsed as a
// decompressed trace, and read as a trace file (zstd, streamed with caps)
// through the stream reader that read_routing_trace(path) calls.
#include <cstdint>
#include <sstream>
#include <string>

#include "analysis/routing_trace.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::expect_only_user_errors([&] {
    const RoutingTrace t = parse_routing_trace(bytes, "input");
    t.tokens(TracePhase::kPrefill);
    t.model.routed_bytes_per_token();
  });
  fuzz::expect_only_user_errors([&] {
    std::istringstream file(bytes);
    read_routing_trace(file, "routing.trace.zst");
  });
  return 0;
}
