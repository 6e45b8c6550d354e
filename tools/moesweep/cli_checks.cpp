#include "cli_checks.hpp"

#include <fmt/format.h>

#include <optional>

#include "util/decimal_number.hpp"

namespace moesweep::cli {
namespace {

// The shortest text that reads back as `v`: 2147483647, 0.5, 1e+308.
std::string limit_text(double v) {
  return fmt::format("{}", v);
}

std::string range_text(double lo, double hi, bool lo_open) {
  const std::string low = fmt::format("{} {}", lo_open ? ">" : ">=", limit_text(lo));
  if (hi == kNoLimit) return "a number " + low;
  if (!lo_open) return fmt::format("a number from {} to {}", limit_text(lo), limit_text(hi));
  return fmt::format("a number {} and <= {}", low, limit_text(hi));
}

CLI::Validator make(double lo, double hi, bool lo_open) {
  const std::string desc = range_text(lo, hi, lo_open);
  return CLI::Validator(
      [lo, hi, lo_open](std::string& input) { return range_problem(input, lo, hi, lo_open); },
      desc);
}

// Refuses text that is no decimal number, saying the option's range when it
// has one; drops the leading zeros of one (CLI11 reads an integer's "010" as
// octal 8).
CLI::Validator decimal_only(const std::string& range) {
  return CLI::Validator(
      [range](std::string& input) -> std::string {
        const std::optional<std::string> text = decimal_text(input);
        if (text) {
          input = *text;
          return "";
        }
        return fmt::format("value '{}' is not a number (decimal digits only{})",
                           input.substr(0, 40), range.empty() ? "" : "; " + range);
      },
      "");
}

}  // namespace

void require_decimal_numbers(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    const std::string type = opt->get_type_name();
    const size_t colon = type.find(':');
    const std::string base = type.substr(0, colon);
    if (opt->get_type_size() != 0 && (base == "INT" || base == "UINT" || base == "FLOAT"))
      opt->transform(decimal_only(colon == std::string::npos ? "" : type.substr(colon + 1)));
  }
  for (CLI::App* sub : app.get_subcommands({})) require_decimal_numbers(*sub);
}

std::string range_problem(const std::string& text, double lo, double hi, bool lo_open) {
  const std::optional<double> v = parse_decimal(text);
  const bool inside = v && (lo_open ? *v > lo : *v >= lo) && *v <= hi;
  if (inside) return "";
  return fmt::format("value '{}' is not {}", text.substr(0, 40), range_text(lo, hi, lo_open));
}

CLI::Validator in_range(double lo, double hi) {
  return make(lo, hi, false);
}

CLI::Validator positive(double hi) {
  return make(0, hi, true);
}

CLI::Validator non_negative(double hi) {
  return make(0, hi, false);
}

}  // namespace moesweep::cli
