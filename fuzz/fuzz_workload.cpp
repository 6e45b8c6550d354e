// serve-bench workload files (serve/workload.hpp): the reader's bounds hold
// for whatever it accepts (sizes in 64 bits, within the caps).
#include <cstdint>

#include "fuzz_input.hpp"
#include "serve/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  fuzz::expect_only_user_errors([&] {
    const Workload w = load_workload(fuzz::input_file(data, size, "workload.json").string());
    if (w.context_tokens() > kMaxServeContext || w.pool_tokens() > kMaxPoolTokens) std::abort();
  });
  return 0;
}
