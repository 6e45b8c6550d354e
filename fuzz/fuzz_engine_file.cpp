// engine.json of a registered engine (engine/engine_file.hpp
// engine_from_json, what read_engine_file reads after its bounded read): any
// bytes as the file's text; what it accepts it writes and reads back unchanged.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/engine_file.hpp"
#include "fuzz_input.hpp"
#include "util/json_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  fuzz::expect_only_user_errors([&] {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const RegisteredEngine e =
        engine_from_json(parse_json_text(text, "engine.json"), "engine.json");
    const nlohmann::json written = to_json(e);
    if (to_json(engine_from_json(written, "rewritten")) != written) std::abort();
  });
  return 0;
}
