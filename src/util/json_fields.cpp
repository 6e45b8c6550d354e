#include "util/json_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/error.hpp"

namespace moesweep {

std::string json_excerpt(const nlohmann::json& v) {
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

namespace {

bool integer_in(const nlohmann::json& v, int64_t lo, int64_t hi) {
  return v.is_number_unsigned()
             ? hi >= 0 && v.get<uint64_t>() <= static_cast<uint64_t>(hi) &&
                   static_cast<int64_t>(v.get<uint64_t>()) >= lo
             : v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
}

}  // namespace

JsonFields::JsonFields(const nlohmann::json& obj, std::string origin, std::string path,
                       Raise raise_error)
    : obj_(&obj), origin_(std::move(origin)), path_(std::move(path)), raise_(raise_error) {
  if (obj.is_object()) return;
  raise(fmt::format("{}: {} is {}", origin_, path_.empty() ? "the file" : "'" + path_ + "'",
                    json_excerpt(obj)),
        "a JSON object", fmt::format("correct {} or record the file again", origin_));
}

void JsonFields::raise(const std::string& problem, const std::string& expected,
                       const std::string& fix) const {
  if (raise_) raise_(problem, expected, fix);
  throw UserError(problem, expected, fix);
}

std::string JsonFields::where(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonFields::fail(std::string_view key, const std::string& expected) const {
  const nlohmann::json* v = find(key);
  raise(fmt::format("{}: field '{}' is {}", origin_, where(key),
                    v ? json_excerpt(*v) : std::string("missing")),
        expected,
        fmt::format("correct '{}' in {} (or record the file again)", where(key), origin_));
}

const nlohmann::json* JsonFields::find(std::string_view key) const {
  const auto it = obj_->find(std::string(key));
  return it == obj_->end() ? nullptr : &*it;
}

bool JsonFields::has(std::string_view key) const {
  const nlohmann::json* v = find(key);
  return v && !v->is_null();
}

std::string JsonFields::text(std::string_view key, std::string fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = *find(key);
  if (!v.is_string()) fail(key, "a string");
  return v.get<std::string>();
}

int64_t JsonFields::integer(std::string_view key, int64_t lo, int64_t hi, int64_t fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = *find(key);
  if (!integer_in(v, lo, hi)) fail(key, fmt::format("an integer from {} to {}", lo, hi));
  return v.get<int64_t>();
}

uint64_t JsonFields::unsigned_integer(std::string_view key, uint64_t hi, uint64_t fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = *find(key);
  const bool fits = (v.is_number_unsigned() && v.get<uint64_t>() <= hi) ||
                    (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() >= 0 &&
                     static_cast<uint64_t>(v.get<int64_t>()) <= hi);
  if (!fits) fail(key, fmt::format("an integer from 0 to {}", hi));
  return v.get<uint64_t>();
}

double JsonFields::number(std::string_view key, double lo, double hi, double fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = *find(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
      v.get<double>() > hi)
    fail(key, fmt::format("a number from {} to {}", lo, hi));
  return v.get<double>();
}

bool JsonFields::flag(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = *find(key);
  if (!v.is_boolean()) fail(key, "true or false");
  return v.get<bool>();
}

std::vector<std::string> JsonFields::texts(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& v : array(key)) {
    if (!v.is_string()) fail(key, "an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

namespace {

// The elements of `list` as T, each checked by `fits` (at most `max_count`);
// `bad` raises.
template <typename T, typename Fits, typename Bad>
std::vector<T> checked_list(const nlohmann::json& list, size_t max_count, Fits fits, Bad bad) {
  if (list.size() > max_count) bad();
  std::vector<T> out;
  out.reserve(list.size());
  for (const nlohmann::json& v : list) {
    if (!fits(v)) bad();
    out.push_back(v.get<T>());
  }
  return out;
}

}  // namespace

std::vector<int64_t> JsonFields::integers(std::string_view key, int64_t lo, int64_t hi,
                                          size_t max_count) const {
  return checked_list<int64_t>(
      array(key), max_count, [&](const nlohmann::json& v) { return integer_in(v, lo, hi); },
      [&] {
        fail(key, fmt::format("a list of at most {} integers from {} to {}", max_count, lo, hi));
      });
}

std::vector<double> JsonFields::numbers(std::string_view key, double lo, double hi,
                                        size_t max_count) const {
  const auto fits = [&](const nlohmann::json& v) {
    return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= lo &&
           v.get<double>() <= hi;
  };
  return checked_list<double>(array(key), max_count, fits, [&] {
    fail(key, fmt::format("a list of at most {} numbers from {} to {}", max_count, lo, hi));
  });
}

JsonFields JsonFields::object(std::string_view key) const {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!has(key)) return JsonFields(empty, origin_, where(key), raise_);
  return JsonFields(*find(key), origin_, where(key), raise_);
}

const nlohmann::json& JsonFields::array(std::string_view key) const {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!has(key)) return empty;
  const nlohmann::json& v = *find(key);
  if (!v.is_array()) fail(key, "an array");
  return v;
}

std::vector<JsonFields> JsonFields::objects(std::string_view key) const {
  std::vector<JsonFields> out;
  const nlohmann::json& list = array(key);
  for (size_t i = 0; i < list.size(); ++i)
    out.emplace_back(list[i], origin_, fmt::format("{}[{}]", where(key), i), raise_);
  return out;
}

nlohmann::json JsonFields::rest(const std::vector<std::string>& known) const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : obj_->items())
    if (std::find(known.begin(), known.end(), k) == known.end()) out[k] = v;
  return out;
}

}  // namespace moesweep
