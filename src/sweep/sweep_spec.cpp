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

// A row's value into its member, as the member's type says; not given: the
// member keeps its default.
void read_member(const SweepSetting& row, const SettingsReader& s, SweepSpec& spec) {
  const std::string key = row.key;
  std::visit(
      [&](auto m) {
        using M = decltype(m);
        if constexpr (std::is_same_v<M, std::monostate>) {
        } else if constexpr (std::is_same_v<M, int64_t ShapeOverrides::*>) {
          spec.twin_overrides.*m = s.one_int(key, 0, row.min);
        } else {
          using T = std::remove_reference_t<decltype(spec.*m)>;
          if constexpr (std::is_same_v<T, std::string>) {
            if (s.has(key)) spec.*m = s.text(key);
          } else if constexpr (std::is_same_v<T, int>) {
            spec.*m = s.one_int(key, spec.*m, row.min);
          } else if constexpr (std::is_same_v<T, uint64_t>) {
            spec.*m = static_cast<uint64_t>(s.one_int(key, static_cast<int>(spec.*m), row.min));
          } else if constexpr (std::is_same_v<T, double>) {
            spec.*m = s.one_number(key, spec.*m, row.min);
          } else if constexpr (std::is_same_v<T, bool>) {
            spec.*m = s.boolean(key, spec.*m);
          } else if constexpr (std::is_same_v<T, std::vector<int>>) {
            spec.*m = s.ints(key, spec.*m, row.min);
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            spec.*m = s.words(key, spec.*m, row.separator);
          } else {
            static_assert(std::is_same_v<T, std::vector<double>>, "a member type without a reader");
            spec.*m = s.numbers(key, row.min, std::numeric_limits<double>::max());
          }
        }
      },
      row.member);
}

// A row's member into the spec's JSON under its name (with json_when_set,
// only when it is not the default).
void write_member(const SweepSetting& row, const SweepSpec& spec, nlohmann::json& j) {
  static const SweepSpec defaults;
  std::visit(
      [&](auto m) {
        using M = decltype(m);
        if constexpr (std::is_same_v<M, std::monostate>) {
        } else if constexpr (std::is_same_v<M, int64_t ShapeOverrides::*>) {
          if (!row.json_when_set || spec.twin_overrides.*m != defaults.twin_overrides.*m)
            j[row.json] = spec.twin_overrides.*m;
        } else {
          if (!row.json_when_set || spec.*m != defaults.*m) j[row.json] = spec.*m;
        }
      },
      row.member);
}

}  // namespace

const std::vector<std::string>& known_sweep_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const SweepSetting& s : sweep_settings()) out.push_back(s.key);
    return out;
  }();
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
