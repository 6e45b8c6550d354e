#pragma once
// Seed 003's decision figures: decode tokens/s per $1000 of system price and
// joules per decoded token at a profile's power, for a given decode speed.
// Absent (nullopt) where the profile has no public figure: never a guess.
#include <optional>
#include <string>

#include "hw/hardware_profile.hpp"

namespace moesweep {

struct CostPerToken {
  std::optional<double> tps_per_kusd;      // tokens/s / (price_usd / 1000)
  std::optional<double> joules_per_token;  // power_w / tokens/s
};

CostPerToken cost_per_token(const HardwareProfile& hw, double tokens_per_s);
// "$15,000 (source, date)" or "no public figure".
std::string price_text(const HardwareProfile& hw);
// "320 W (source)" or "no public figure".
std::string power_text(const HardwareProfile& hw);

}  // namespace moesweep
