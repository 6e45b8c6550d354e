#pragma once
// Typed reading of the JSON objects in our files. Every getter checks a key's
// type and range and, when it is wrong, throws a UserError naming the file,
// the field's path ("build.cpu.family") and what was expected; nothing is
// narrowed (an int field holding 2^32 + 1 is refused, not wrapped).
//
// FieldRow tables (a Rows<FieldRow<S>>, util/rows.hpp): one row per member
// (key, member, range) drive both the reader and the writer of a struct, so a
// new fact is one member plus one row.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "util/rows.hpp"

namespace moesweep {

class JsonFields {
 public:
  // Raises the error of a field that is not as expected (it must throw). The
  // default raises a UserError about a file; a peer's messages raise their own
  // error type (engine/wire_rows.hpp).
  using Raise = void (*)(const std::string& problem, const std::string& expected,
                         const std::string& fix);

  // Raises unless `obj` is an object. `path` prefixes field names in messages
  // ("" at the top level).
  JsonFields(const nlohmann::json& obj, std::string origin, std::string path = "",
             Raise raise_error = nullptr);

  bool has(std::string_view key) const;  // present and not null
  std::string text(std::string_view key, std::string fallback = {}) const;
  int64_t integer(std::string_view key, int64_t lo, int64_t hi, int64_t fallback) const;
  uint64_t unsigned_integer(std::string_view key, uint64_t hi, uint64_t fallback) const;
  // A finite number in [lo, hi].
  double number(std::string_view key, double lo, double hi, double fallback) const;
  bool flag(std::string_view key, bool fallback) const;
  std::vector<std::string> texts(std::string_view key) const;  // an array of strings
  // An array of at most `max_count` integers in [lo, hi] (empty when absent).
  std::vector<int64_t> integers(std::string_view key, int64_t lo, int64_t hi,
                                size_t max_count) const;
  // An array of at most `max_count` finite numbers in [lo, hi] (empty when absent).
  std::vector<double> numbers(std::string_view key, double lo, double hi, size_t max_count) const;
  // The object at `key` (an empty one when absent).
  JsonFields object(std::string_view key) const;
  // The array at `key` (an empty one when absent).
  const nlohmann::json& array(std::string_view key) const;
  // The elements of the array at `key` as objects, each with its path ("sources[2]").
  std::vector<JsonFields> objects(std::string_view key) const;
  // Every key not in `known`, as read (kept by a rewrite).
  nlohmann::json rest(const std::vector<std::string>& known) const;

  const nlohmann::json& json() const { return *obj_; }
  const std::string& origin() const { return origin_; }
  std::string where(std::string_view key) const;  // "build.cpu.family"
  [[noreturn]] void fail(std::string_view key, const std::string& expected) const;

 private:
  const nlohmann::json* find(std::string_view key) const;
  [[noreturn]] void raise(const std::string& problem, const std::string& expected,
                          const std::string& fix) const;
  const nlohmann::json* obj_;
  std::string origin_, path_;
  Raise raise_ = nullptr;
};

// A checked text for a message: at most 80 characters of `v`'s JSON.
std::string json_excerpt(const nlohmann::json& v);

// A member's key, the member, and its checks. An optional member is absent
// where the file has no such key; a JSON member is an object kept whole, read
// and written by the part of the code that owns its type.
template <typename S>
struct FieldRow {
  using Member =
      MemberOf<S, std::string, int, int64_t, uint64_t, bool, double, std::vector<std::string>,
               std::optional<int64_t>, std::optional<bool>, nlohmann::json>;
  const char* key;
  Member member;
  int64_t lo = 0;  // integers: the range the code uses
  int64_t hi = std::numeric_limits<int32_t>::max();
  bool keep_empty = false;  // an empty text or list is written too (files always had the key)
};

template <typename S>
using FieldRows = Rows<FieldRow<S>>;

template <typename S>
void read_rows(const JsonFields& f, S& s, const FieldRows<S>& rows) {
  for (const FieldRow<S>& row : rows) {
    visit_member(s, row.member, [&](auto& v) {
      using T = std::remove_reference_t<decltype(v)>;
      if constexpr (std::is_same_v<T, nlohmann::json>) {
        if (f.has(row.key)) v = f.json().at(row.key);
      } else if constexpr (std::is_same_v<T, std::optional<int64_t>>) {
        if (f.has(row.key)) v = f.integer(row.key, row.lo, row.hi, 0);
      } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
        if (f.has(row.key)) v = f.flag(row.key, false);
      } else if constexpr (std::is_same_v<T, std::string>)
        v = f.text(row.key, v);
      else if constexpr (std::is_same_v<T, bool>)
        v = f.flag(row.key, v);
      else if constexpr (std::is_same_v<T, double>)
        v = f.number(row.key, static_cast<double>(row.lo), static_cast<double>(row.hi), v);
      else if constexpr (std::is_same_v<T, uint64_t>)
        v = f.unsigned_integer(row.key, static_cast<uint64_t>(row.hi), v);
      else if constexpr (std::is_integral_v<T>)
        v = static_cast<T>(f.integer(row.key, row.lo, row.hi, v));
      else
        v = f.has(row.key) ? f.texts(row.key) : v;
    });
  }
}

// Empty texts and lists (unless keep_empty), absent optionals and null JSON
// are left out (a reader gets the same default back).
template <typename S>
void write_rows(const S& s, const FieldRows<S>& rows, nlohmann::json& j) {
  for (const FieldRow<S>& row : rows)
    visit_member(s, row.member, [&](const auto& v) {
      using T = std::remove_cvref_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<std::string>>) {
        if (v.empty() && !row.keep_empty) return;
        j[row.key] = v;
      } else if constexpr (std::is_same_v<T, nlohmann::json>) {
        if (!v.is_null()) j[row.key] = v;
      } else if constexpr (std::is_same_v<T, std::optional<int64_t>> ||
                           std::is_same_v<T, std::optional<bool>>) {
        if (v) j[row.key] = *v;
      } else {
        j[row.key] = v;
      }
    });
}

}  // namespace moesweep
