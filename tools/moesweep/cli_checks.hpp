#pragma once
// The range check of every numeric flag: one validator, decimal numbers
// only (util/decimal_number.hpp), so NaN and the infinities fail every range ("nan" compares false
// with any limit, which CLI11's own Range lets through), and a limit prints compactly (CLI11 prints
// DBL_MAX as a 309-digit number; an unbounded side is left unsaid).
#include <CLI/CLI.hpp>

#include <limits>
#include <string>

namespace moesweep::cli {

inline constexpr double kNoLimit = std::numeric_limits<double>::max();

// Every typed number option of `app` and of its subcommands reads decimal
// text only (util/decimal_number.hpp): CLI11 alone reads "0x10" as 16,
// "010" as 8, and "inf" or "nan" as numbers. Called once, after every
// option is added.
void require_decimal_numbers(CLI::App& app);

// A finite number in [lo, hi].
CLI::Validator in_range(double lo, double hi);
// A finite number in (0, hi].
CLI::Validator positive(double hi = kNoLimit);
// A finite number in [0, hi].
CLI::Validator non_negative(double hi = kNoLimit);

// The words a range check prints for a value it refuses ("" when `text` is
// in range): what the validators above return, kept callable for tests.
std::string range_problem(const std::string& text, double lo, double hi, bool lo_open);

}  // namespace moesweep::cli
