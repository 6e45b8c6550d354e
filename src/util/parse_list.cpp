#include "util/parse_list.hpp"

#include <fmt/format.h>

#include <charconv>

#include "util/error.hpp"

namespace moesweep {
namespace {

int64_t parse_int(std::string_view s, std::string_view whole, std::string_view flag) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range && ptr == s.data() + s.size()) {
    throw UserError(fmt::format("{}: {} is out of range (in '{}')", flag, s, whole),
                    "integers between -9223372036854775808 and 9223372036854775807",
                    fmt::format("give {} a smaller value", flag));
  }
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    throw UserError(fmt::format("{}: '{}' is not a number (in '{}')", flag, s, whole),
                    "integers, lists like 16,14,13 or ranges like 12-16, 0-8192+1024, 512-4096*2",
                    fmt::format("fix the value of {}", flag));
  }
  return value;
}

UserError too_many_values(std::string_view flag, std::string_view item) {
  return UserError(
      fmt::format("{}: '{}' expands to more than {} values", flag, item, kMaxListValues),
      fmt::format("at most {} values per flag", kMaxListValues),
      fmt::format("give {} fewer values or a coarser step (1-64+8, 0-131072+16384)", flag));
}

}  // namespace

std::vector<std::string> split_list(std::string_view text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

std::vector<int64_t> parse_int_list(std::string_view text, std::string_view flag) {
  std::vector<int64_t> values;
  for (const std::string& item : split_list(text)) {
    if (values.size() >= kMaxListValues) throw too_many_values(flag, text);
    // A leading '-' would be a negative number, never a range.
    size_t dash = item.find('-', 1);
    if (dash == std::string::npos) {
      values.push_back(parse_int(item, text, flag));
      continue;
    }
    const int64_t first = parse_int(std::string_view(item).substr(0, dash), text, flag);
    std::string_view rest = std::string_view(item).substr(dash + 1);
    char op = '+';
    int64_t step = 1;
    if (size_t p = rest.find_first_of("+*"); p != std::string_view::npos) {
      op = rest[p];
      step = parse_int(rest.substr(p + 1), text, flag);
      rest = rest.substr(0, p);
    }
    const int64_t last = parse_int(rest, text, flag);
    if (last < first || step <= 0 || (op == '*' && (step < 2 || first <= 0))) {
      throw UserError(
          fmt::format("{}: range '{}' is empty or never ends", flag, item),
          "first-last with first <= last, +step > 0 or *factor >= 2 from a positive first",
          fmt::format("write the range of {} as e.g. 12-16 or 512-8192*2", flag));
    }
    for (int64_t v = first; v <= last;) {
      if (values.size() >= kMaxListValues) throw too_many_values(flag, item);
      values.push_back(v);
      // Stop instead of overflowing past INT64_MAX (a range ending near it).
      if (op == '+' ? __builtin_add_overflow(v, step, &v) : __builtin_mul_overflow(v, step, &v))
        break;
    }
  }
  if (values.empty()) {
    throw UserError(fmt::format("{}: no values given", flag), "at least one value",
                    fmt::format("give {} a value such as 16 or 12-16", flag));
  }
  return values;
}

bool parse_bool_word(std::string_view text, std::string_view flag) {
  if (text == "1" || text == "on" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "off" || text == "false" || text == "no") return false;
  throw UserError(fmt::format("{}: '{}' is not on or off", flag, text),
                  "on, off, 1, 0, true or false", fmt::format("write {} on or {} off", flag, flag));
}

}  // namespace moesweep
