#include "sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "sweep/settings_reader.hpp"
#include "sweep/spec_limits.hpp"
#include "sweep/sweep_settings.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

// Every key is a setting of the table (a typo in a profile is an error, not ignored).
void check_known_settings(const std::map<std::string, nlohmann::json>& settings,
                          const std::string& origin) {
  for (const auto& [key, value] : settings) {
    const auto& keys = known_sweep_keys();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      throw UserError(fmt::format("{}: unknown setting '{}'", origin, key),
                      fmt::format("one of {}", fmt::join(keys, ", ")),
                      "remove it or correct its spelling (profile keys are the flags' long names)");
    }
  }
}

// f(spec.*m, defaults.*m) for the member a row sets (a twin shape override:
// in twin_overrides); nothing for a row without one (set by its `parse`).
template <typename Spec, typename F>
void visit_setting(const SweepSetting& row, Spec& spec, const SweepSpec& defaults, F&& f) {
  std::visit(
      [&](auto m) {
        using M = decltype(m);
        if constexpr (std::is_same_v<M, int64_t ShapeOverrides::*>)
          f(spec.twin_overrides.*m, defaults.twin_overrides.*m);
        else if constexpr (!std::is_same_v<M, std::monostate>)
          f(spec.*m, defaults.*m);
      },
      row.member);
}

// A row's value into its member, as the member's type says; not given: the
// member keeps its default.
void read_member(const SweepSetting& row, const SettingsReader& s, SweepSpec& spec) {
  const std::string key = row.key;
  visit_setting(row, spec, spec, [&](auto& v, const auto&) {
    using T = std::remove_reference_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>) {
      if (s.has(key)) v = s.text(key);
    } else if constexpr (std::is_same_v<T, int>) {
      v = s.one_int(key, v, row.min);
    } else if constexpr (std::is_same_v<T, uint64_t> || std::is_same_v<T, int64_t>) {
      v = static_cast<T>(s.one_int(key, static_cast<int>(v), row.min));
    } else if constexpr (std::is_same_v<T, double>) {
      v = s.one_number(key, v, row.min);
    } else if constexpr (std::is_same_v<T, bool>) {
      v = s.boolean(key, v);
    } else if constexpr (std::is_same_v<T, std::vector<int>>) {
      v = s.ints(key, v, row.min);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      v = s.words(key, v, row.separator);
    } else {
      static_assert(std::is_same_v<T, std::vector<double>>, "a member type without a reader");
      v = s.numbers(key, row.min, std::numeric_limits<double>::max());
    }
  });
}

// A row's member into the spec's JSON under its name (with json_when_set,
// only when it is not the default).
void write_member(const SweepSetting& row, const SweepSpec& spec, nlohmann::json& j) {
  static const SweepSpec defaults;
  visit_setting(row, spec, defaults, [&](const auto& v, const auto& fallback) {
    if (!row.json_when_set || v != fallback) j[row.json] = v;
  });
}

}  // namespace

const std::vector<std::string>& known_sweep_keys() {
  static const std::vector<std::string> keys = sweep_settings().keys();
  return keys;
}

SweepSpec spec_from_settings(const std::map<std::string, nlohmann::json>& settings,
                             const std::string& origin) {
  check_known_settings(settings, origin);
  const SettingsReader s(settings, origin);
  SweepSpec spec;
  for (const SweepSetting& row : sweep_settings()) {
    if (row.parse)
      row.parse(s, spec);
    else
      read_member(row, s, spec);
    if (row.check) row.check(s, spec);
  }
  if (spec.n_prompt == 0 && spec.n_gen == 0) {
    throw UserError(fmt::format("{}: both --n-prompt and --n-gen are 0", origin),
                    "something to measure", "give -n 32 or leave --n-prompt unset (one ubatch)");
  }
  check_spec_limits(spec, s.has("ctx-size") && s.has("batch-size"), origin);
  return spec;
}

std::vector<int> SweepSpec::ctx_for(int ubatch) const {
  if (!n_ctx.empty()) return n_ctx;
  const int pp = n_prompt > 0 ? n_prompt : ubatch;
  int64_t deepest = -1;
  if (!depths.empty()) {
    deepest = *std::max_element(depths.begin(), depths.end());
  } else if (depth_max >= 0) {
    const int step = depth_step > 0 ? depth_step : ubatch;
    deepest = depth_max / step * step;  // the walk's last depth
  }
  if (deepest < 0) return {kDefaultCtx};
  // Never below the engine's smallest useful context; the plan refuses what overflows int.
  const int64_t need = deepest + pp + n_gen;
  return {static_cast<int>(std::clamp<int64_t>(need, 64, INT32_MAX))};
}

std::vector<int> SweepSpec::depths_for(int ctx, int ubatch) const {
  if (!depths.empty()) return depths;
  const int pp = n_prompt > 0 ? n_prompt : ubatch;
  const int step = depth_step > 0 ? depth_step : ubatch;
  const int room = ctx - pp - n_gen;  // the deepest depth that still fits
  const int last = depth_max >= 0 ? std::min(depth_max, room) : room;
  std::vector<int> out;
  for (int d = 0; d <= last; d += step) {
    if (out.size() >= kMaxListValues) {
      throw UserError(fmt::format("the walk to depth {} in steps of {} has more than {} depths",
                                  last, step, kMaxListValues),
                      fmt::format("at most {} depths per context", kMaxListValues),
                      "raise --depth-step, lower --depth-max, or give --depths explicitly");
    }
    out.push_back(d);
  }
  if (out.empty()) out.push_back(0);  // the plan reports why it does not fit
  return out;
}

nlohmann::json SweepSpec::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const SweepSetting& row : sweep_settings()) {
    if (row.json) write_member(row, *this, j);
    if (row.write) row.write(*this, j);
  }
  return j;
}

}  // namespace moesweep
