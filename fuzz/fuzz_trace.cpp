// Routing traces (analysis/routing_trace.hpp): the input parsed as a
// decompressed trace, and read as a trace file (zstd, streamed with caps).
#include <cstdint>
#include <string>

#include "analysis/routing_trace.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  fuzz::expect_only_user_errors([&] {
    const RoutingTrace t =
        parse_routing_trace(std::string(reinterpret_cast<const char*>(data), size), "input");
    t.tokens(TracePhase::kPrefill);
    t.model.routed_bytes_per_token();
  });
  fuzz::expect_only_user_errors(
      [&] { read_routing_trace(fuzz::input_file(data, size, "routing.trace.zst")); });
  return 0;
}
