// Sweep profiles (sweep/sweep_spec.hpp: load_sweep_profile, then
// spec_from_settings) and model profiles (model/model_profile.hpp), from one
// input: a profile is a JSON object of settings.
#include <cstdint>

#include "fuzz_input.hpp"
#include "model/model_profile.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/json_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  const auto file = fuzz::input_file(data, size, "profile.json");
  fuzz::expect_only_user_errors([&] {
    std::string origin;
    const auto settings = load_sweep_profile(file.string(), &origin);
    spec_from_settings(settings, origin);
  });
  fuzz::expect_only_user_errors([&] {
    const ModelProfile p = parse_model_profile(read_json_file(file, "model profile"), "input");
    count_params(p);
  });
  return 0;
}
