// meta.json (results/run_meta.hpp): the typed reader and its migrations on
// any JSON; what it accepts it writes and reads back unchanged.
#include <cstdint>
#include <string_view>

#include "fuzz_input.hpp"
#include "results/run_meta.hpp"
#include "util/json_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  fuzz::expect_only_user_errors([&] {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const RunMeta meta = run_meta_from_json(parse_json_text(text, "meta.json"), "meta.json", "d");
    const nlohmann::json written = to_json(meta);
    if (to_json(run_meta_from_json(written, "rewritten")) != written) std::abort();
    machine_class_id(machine_class_of(meta));
  });
  return 0;
}
