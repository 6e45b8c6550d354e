#include "sweep/settings_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>

#include "sweep/spec_limits.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {

std::string setting_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) parts.push_back(setting_text(e));
    return fmt::format("{}", fmt::join(parts, ","));
  }
  return v.dump();
}

std::string SettingsReader::flag(const std::string& key) const {
  return fmt::format("{} (--{})", origin_, key);
}

std::vector<int> SettingsReader::ints(const std::string& key, std::vector<int> fallback,
                                      int min_value) const {
  if (!has(key)) return fallback;
  std::vector<int64_t> values;
  try {
    values = parse_int_list(text(key), "--" + key);
  } catch (const UserError& e) {  // the fix names the bare flag, the problem the origin
    throw UserError(fmt::format("{}: {}", origin_, e.problem()), e.expected(), e.fix());
  }
  const ValueLimit limit = value_limit(key);
  std::vector<int> out;
  for (int64_t v : values) {
    if (v < min_value) {
      throw UserError(fmt::format("{}: value {} is too small", flag(key), v),
                      fmt::format("values >= {}", min_value), fmt::format("fix --{}", key));
    }
    if (v > limit.max) {
      throw UserError(fmt::format("{}: value {} is too large", flag(key), v),
                      fmt::format("values <= {} ({})", limit.max, limit.why),
                      fmt::format("lower --{}", key));
    }
    out.push_back(static_cast<int>(v));
  }
  return out;
}

int SettingsReader::one_int(const std::string& key, int fallback, int min_value) const {
  const auto v = ints(key, {fallback}, min_value);
  if (v.size() != 1) {
    throw UserError(fmt::format("{}: takes one value, got {}", flag(key), v.size()),
                    "a single number", fmt::format("give --{} one value", key));
  }
  return v[0];
}

double SettingsReader::one_number(const std::string& key, double fallback, double min_value) const {
  if (!has(key)) return fallback;
  const std::string t = text(key);
  const std::optional<double> v = parse_decimal(t);
  if (!v || !(*v >= min_value) || !std::isfinite(*v)) {
    throw UserError(fmt::format("{}: '{}' is not a number >= {}", flag(key), t, min_value),
                    fmt::format("one number >= {}, e.g. 2", min_value),
                    fmt::format("fix --{}", key));
  }
  return *v;
}

std::vector<double> SettingsReader::numbers(const std::string& key, double min_value,
                                            double max_value) const {
  std::vector<double> out;
  if (!has(key)) return out;
  for (const std::string& w : words(key, {})) {
    const std::optional<double> v = parse_decimal(w);
    if (!v || !(*v >= min_value && *v <= max_value)) {
      throw UserError(
          fmt::format("{}: '{}' is not a number from {} to {}", flag(key), w, min_value, max_value),
          fmt::format("numbers from {} to {}, e.g. 0,0.5,1,1.5", min_value, max_value),
          fmt::format("fix --{}", key));
    }
    out.push_back(*v);
  }
  return out;
}

std::vector<std::string> SettingsReader::words(const std::string& key,
                                               std::vector<std::string> fallback, char sep) const {
  if (!has(key)) return fallback;
  std::vector<std::string> out;
  const nlohmann::json& v = s_.at(key);
  for (const auto& e : v.is_array() ? v : nlohmann::json::array({v}))
    for (std::string& w : split_list(setting_text(e), sep)) out.push_back(std::move(w));
  if (out.empty()) {
    throw UserError(fmt::format("{}: no value given", flag(key)), "at least one value",
                    fmt::format("give --{} a value, or leave it out for the default", key));
  }
  return out;
}

bool SettingsReader::boolean(const std::string& key, bool fallback) const {
  return has(key) ? boolean_word(text(key), key) : fallback;
}

// parse_bool_word's fix repeats the flag name ("write --fa on"): give it the
// bare flag and put the origin in front of the problem only.
bool SettingsReader::boolean_word(const std::string& word, const std::string& key) const {
  try {
    return parse_bool_word(word, "--" + key);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", origin_, e.problem()), e.expected(), e.fix());
  }
}

}  // namespace moesweep
