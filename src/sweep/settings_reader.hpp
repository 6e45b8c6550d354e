#pragma once
// A sweep's settings as given (flag long name -> JSON value: a string, a
// number, a bool or an array), read one key at a time into the types
// SweepSpec holds. Every refusal is a UserError naming where the setting came
// from, the flag, what was expected and the fix.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace moesweep {

// A setting as text: numbers, bools and arrays joined the way a flag is written.
std::string setting_text(const nlohmann::json& v);

class SettingsReader {
 public:
  SettingsReader(const std::map<std::string, nlohmann::json>& settings, std::string origin)
      : s_(settings), origin_(std::move(origin)) {}
  bool has(const std::string& key) const { return s_.count(key) > 0; }
  std::string text(const std::string& key) const { return setting_text(s_.at(key)); }
  // "ORIGIN (--KEY)": where a refusal says the value came from.
  std::string flag(const std::string& key) const;
  const std::string& origin() const { return origin_; }

  // A list of integers ("1,2,4", "12-16"), each at least `min_value` and
  // within the key's limit (spec_limits.hpp); `fallback` when not given.
  std::vector<int> ints(const std::string& key, std::vector<int> fallback, int min_value) const;
  // One integer, as ints().
  int one_int(const std::string& key, int fallback, int min_value) const;
  // One finite number at least `min_value`.
  double one_number(const std::string& key, double fallback, double min_value) const;
  // A list of numbers ("0,0.5,1.5"), each in [min_value, max_value]; empty when not given.
  std::vector<double> numbers(const std::string& key, double min_value, double max_value) const;
  // A list of words; given but empty ("-m ''") is refused, never an empty axis.
  std::vector<std::string> words(const std::string& key, std::vector<std::string> fallback,
                                 char sep = ',') const;
  bool boolean(const std::string& key, bool fallback) const;

 private:
  bool boolean_word(const std::string& word, const std::string& key) const;

  const std::map<std::string, nlohmann::json>& s_;
  std::string origin_;
};

}  // namespace moesweep
