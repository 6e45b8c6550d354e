// The noise profile `hw --noise` caches and every sweep reads back
// (hw/noise_profile.hpp): ours, but untrusted when read. The input is the
// file, read by the same reader and bounds as the cache.
#include <cstdint>

#include "fuzz_input.hpp"
#include "hw/noise_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  const auto path = fuzz::input_file(data, size, "noise-profile.json");
  fuzz::expect_only_user_errors([&] {
    const NoiseProfile p = read_noise_profile(path, "fuzz");
    (void)recommended_sample_time(p);
    (void)cv_at_seconds(p.tg, 0.5);
  });
  return 0;
}
