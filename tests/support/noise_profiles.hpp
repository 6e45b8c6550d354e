#pragma once
// Hand-made noise profiles (hw/noise_profile.hpp) for the tests of the
// profile, the sample length and what a fixed -n costs.
#include <string>
#include <vector>

#include "hw/noise_profile.hpp"

namespace moesweep::test {

// TG samples of 16, 64, 256, ... tokens at 1 ms a token, one CV each.
inline NoiseProfile profile_with_cvs(const std::vector<double>& cvs) {
  NoiseProfile p;
  p.machine_key = std::string("k");  // not = "k": GCC 12 warns (-Wrestrict) on that inlined
  p.measured_at = std::string("2026-01-01T00:00:00Z");
  int tokens = 16;
  for (double cv : cvs) {
    p.tg.push_back({tokens, tokens / 16, 0, 10, tokens * 1e-3, 1000, cv});
    tokens *= 4;
  }
  return p;
}

}  // namespace moesweep::test
