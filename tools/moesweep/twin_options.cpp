#include "twin_options.hpp"

#include <fmt/format.h>

#include "model/shape_flags.hpp"
#include "util/error.hpp"

namespace moesweep::cli {

void TwinOptions::add_to(CLI::App& cmd, bool model_flag_is_profile) {
  if (model_flag_is_profile)
    cmd.add_option("--model", model, "model profile name (profiles/models) or profile JSON path")
        ->capture_default_str();
  cmd.add_option("--scale", scale, "twin size preset: tiny (tests), small (~1-2 GB), full")
      ->capture_default_str();
  for (const ShapeFlag& f : twin_shape_flags())
    given_.push_back({cmd.add_option(f.flag, overrides.*f.member, f.help), &(overrides.*f.member)});
  cmd.add_option("--seed", seed, "random seed of the weights")->capture_default_str();
  cmd.add_option("--routing-skew", routing_skew,
                 "Zipf exponent s of expert popularity (0: random routing; see docs/l3.md)")
      ->capture_default_str();
}

TwinSpec TwinOptions::spec_for(const std::string& quant) const {
  // 0 means "not overridden" inside ShapeOverrides: a given 0 (or less) must
  // not silently become the preset's value.
  for (const auto& [option, value] : given_)
    if (option->count() > 0 && *value < 1) {
      throw UserError(
          fmt::format("{} {}: a twin's shape needs a positive value", option->get_name(), *value),
          "a number >= 1",
          fmt::format("fix {}, or leave it out for the preset's value", option->get_name()));
    }
  return twin_spec_for(model, scale, overrides, quant, seed, routing_skew);
}

std::string human_count(int64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1e12) return fmt::format("{:.2f}T", v / 1e12);
  if (v >= 1e9) return fmt::format("{:.2f}B", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f}K", v / 1e3);
  return std::to_string(n);
}

std::string human_bytes(uint64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", v / (1024.0 * 1024 * 1024));
  if (v >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", v / (1024.0 * 1024));
  return fmt::format("{:.1f} KiB", v / 1024.0);
}

}  // namespace moesweep::cli
