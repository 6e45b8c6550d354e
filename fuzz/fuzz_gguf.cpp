// GGUF headers (model/gguf_inspect.hpp, engine/gguf_sanity.hpp, and ggml's
// gguf reader under them, built into this target with the fuzzer's
// instrumentation): any bytes as a .gguf file.
#include <cstdint>

#include "fuzz_input.hpp"
#include "model/gguf_inspect.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  fuzz::expect_only_user_errors([&] {
    const GgufInspection m = inspect_gguf(fuzz::input_file(data, size, "model.gguf"));
    active_bytes_per_token(m, 4096, GGML_TYPE_F16, GGML_TYPE_F16);
  });
  return 0;
}
