// serve-bench's run files read back (serve/serve_run_files.hpp):
// requests.jsonl and summary.json from one input.
#include <cstdint>

#include "fuzz_input.hpp"
#include "serve/serve_run_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  const auto file = fuzz::input_file(data, size, "requests.jsonl");
  fuzz::expect_only_user_errors([&] { read_serve_requests(file); });
  fuzz::expect_only_user_errors([&] { read_serve_summary(file); });
  return 0;
}
