#include "util/decimal_number.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

namespace moesweep {
namespace {

bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Index past the digits from `i`.
size_t digits_end(std::string_view s, size_t i) {
  while (i < s.size() && digit(s[i])) ++i;
  return i;
}

// Whether all of `s` is one decimal number.
bool is_decimal(std::string_view s) {
  size_t i = s.empty() || (s[0] != '+' && s[0] != '-') ? 0 : 1;
  const size_t int_end = digits_end(s, i);
  size_t frac_digits = 0, at = int_end;
  if (at < s.size() && s[at] == '.') {
    const size_t frac_end = digits_end(s, at + 1);
    frac_digits = frac_end - at - 1;
    at = frac_end;
  }
  if (int_end == i && frac_digits == 0) return false;  // no digit at all
  if (at < s.size() && (s[at] == 'e' || s[at] == 'E')) {
    size_t e = at + 1;
    if (e < s.size() && (s[e] == '+' || s[e] == '-')) ++e;
    const size_t e_end = digits_end(s, e);
    if (e_end == e) return false;
    at = e_end;
  }
  return at == s.size();
}

}  // namespace

size_t decimal_prefix_length(std::string_view text) {
  for (size_t n = text.size(); n > 0; --n)
    if (is_decimal(text.substr(0, n))) return n;
  return 0;
}

std::optional<double> parse_decimal(std::string_view text) {
  if (!is_decimal(text)) return std::nullopt;
  std::string_view s = text.front() == '+' ? text.substr(1) : text;  // from_chars takes no '+'
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_decimal_integer(std::string_view text) {
  if (!is_decimal(text) || text.find_first_of(".eE") != std::string_view::npos) return std::nullopt;
  std::string_view s = text.front() == '+' ? text.substr(1) : text;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::string> decimal_text(std::string_view text) {
  if (!is_decimal(text)) return std::nullopt;
  const size_t sign = text.front() == '+' || text.front() == '-' ? 1 : 0;
  size_t first = sign;
  while (first + 1 < text.size() && text[first] == '0' && digit(text[first + 1])) ++first;
  return std::string(text.substr(0, sign)) + std::string(text.substr(first));
}

}  // namespace moesweep
