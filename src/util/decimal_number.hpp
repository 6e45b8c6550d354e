#pragma once
// Numbers as a person writes them on a command line: decimal only. The C
// readers take more than that -- strtod and strtoll(base 0) read "0x10" as
// 16, "010" as 8, and "inf", "nan" or " 5" as numbers -- so every number the
// CLI reads (its typed options through cli::require_decimal_numbers, and the
// lists and percentages it parses itself) is read here, and anything else is
// refused by the caller with its flag named.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace moesweep {

// [+-]digits[.digits][e[+-]digits] (or .digits): finite; nullopt otherwise.
std::optional<double> parse_decimal(std::string_view text);
// [+-]digits within 64 bits; nullopt otherwise (a fraction, an exponent, hex).
std::optional<int64_t> parse_decimal_integer(std::string_view text);
// The same decimal text with the leading zeros of its integer part dropped
// ("010" -> "10", "-007.5" -> "-7.5"), so a reader that takes "0..." as octal
// reads what was meant; nullopt when `text` is no decimal number.
std::optional<std::string> decimal_text(std::string_view text);
// The length of the longest decimal number `text` starts with (0: none), for
// a number followed by a unit ("32M", "2GiB").
size_t decimal_prefix_length(std::string_view text);

}  // namespace moesweep
