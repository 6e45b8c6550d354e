#include "cli_checks.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

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

}  // namespace

std::string range_problem(const std::string& text, double lo, double hi, bool lo_open) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const bool parsed = !text.empty() && end == text.c_str() + text.size() && errno != ERANGE;
  const bool inside = parsed && std::isfinite(v) && (lo_open ? v > lo : v >= lo) && v <= hi;
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
