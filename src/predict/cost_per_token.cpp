#include "predict/cost_per_token.hpp"

#include <fmt/format.h>

namespace moesweep {

CostPerToken cost_per_token(const HardwareProfile& hw, double tokens_per_s) {
  CostPerToken c;
  if (!(tokens_per_s > 0)) return c;
  if (hw.price_usd > 0) c.tps_per_kusd = tokens_per_s / (hw.price_usd / 1000);
  if (hw.power_w > 0) c.joules_per_token = hw.power_w / tokens_per_s;
  return c;
}

std::string price_text(const HardwareProfile& hw) {
  if (!(hw.price_usd > 0)) return "no public figure";
  return fmt::format("${:.0f} ({}, {})", hw.price_usd, hw.price_source, hw.price_date);
}

std::string power_text(const HardwareProfile& hw) {
  if (!(hw.power_w > 0)) return "no public figure";
  return fmt::format("{:.0f} W ({})", hw.power_w, hw.power_source);
}

}  // namespace moesweep
