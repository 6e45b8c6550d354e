// callgrind output files (counters/callgrind_dump.hpp): the header --counters
// sim reads after every timed phase, parsed from memory as the file reader
// parses the file's first kMaxCallgrindHeaderBytes.
#include <cstdint>
#include <string_view>

#include "counters/callgrind_dump.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz::expect_only_user_errors([&] {
    const counters::CallgrindDump d = counters::parse_callgrind_dump(bytes, "input");
    (void)d.label();
  });
  return 0;
}
