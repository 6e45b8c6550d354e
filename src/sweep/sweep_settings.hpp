#pragma once
// The one list of a sweep's settings: each row is a profile key (the flag's
// long name), its CLI spelling(s), its help line, what kind of value it takes,
// the level of the plan it acts on, and how its value gets into SweepSpec and
// into the spec's JSON (meta.json's "spec", whose hash is the plan id). The
// profile parser's known keys, spec_from_settings and SweepSpec::to_json
// (sweep_spec.cpp: loops over this table), the CLI11 options and llama.cpp's
// single-dash aliases (tools/moesweep/sweep_options.cpp) are all derived from
// it, so a setting never works in a profile but not as a flag (or the other
// way round), and is never read in one place and written in another.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "model/model_profile.hpp"
#include "util/rows.hpp"

namespace moesweep {

enum class SettingKind {
  kValue,        // one value or a list as text: "16,14,13,12", "0-8192+1024"
  kSwitch,       // a bare flag (--mlock); true in a profile
  kRepeated,     // may be given several times; joined with ';' (-ot)
  kProfileOnly,  // a profile's own key (description): no flag
};

// Where the setting takes effect (docs/design.md, "Where a new axis goes").
enum class SettingLevel {
  kRun,      // bookkeeping of the whole run (name, counters)
  kTwin,     // the twin's file: one model group per distinct twin
  kModel,    // ModelLoadParams: a model load per value
  kContext,  // ContextParams: a context per value
  kThread,   // ThreadSettings: switched on the live context
  kWalk,     // the KV walk and the measurement (depths, -p, -n, -r)
  kEngine,   // the engine build: one worker per value, its points interleaved with the others'
};

struct SweepSpec;
class SettingsReader;

// The SweepSpec member a row's value sets (a twin shape override: the member
// of SweepSpec::twin_overrides); monostate: set by the row's `parse`, or read
// with another row's (--quant with --model).
using SpecMember = std::variant<std::monostate, std::string SweepSpec::*, int SweepSpec::*,
                                uint64_t SweepSpec::*, double SweepSpec::*, bool SweepSpec::*,
                                std::vector<int> SweepSpec::*, std::vector<double> SweepSpec::*,
                                std::vector<std::string> SweepSpec::*, int64_t ShapeOverrides::*>;

struct SweepSetting {
  const char* key;                    // profile key = long flag name
  const char* cli_names = nullptr;    // CLI11 names ("-t,--threads"); nullptr for kProfileOnly
  const char* llama_alias = nullptr;  // llama.cpp's single-dash spelling ("-tb"), or nullptr
  const char* help = nullptr;
  SettingKind kind = SettingKind::kValue;
  SettingLevel level = SettingLevel::kRun;
  // Into SweepSpec: the value read into `member` as its type says (integers
  // at least `min`, lists split at `separator`; not given: the member keeps
  // its default), or by `parse` (spec_parsers.hpp) when that is not enough;
  // then `check` refuses what the member cannot hold.
  SpecMember member = {};
  int min = 0;
  char separator = ',';
  void (*parse)(const SettingsReader& s, SweepSpec& spec) = nullptr;
  void (*check)(const SettingsReader& s, const SweepSpec& spec) = nullptr;
  // Into the spec's JSON: `member` under `json` (nullptr: not written), only
  // when it differs from its default with `json_when_set` (a setting added
  // later leaves the plan ids of sweeps without it as they were); `write`
  // adds what is not one member's value.
  const char* json = nullptr;
  bool json_when_set = false;
  void (*write)(const SweepSpec& spec, nlohmann::json& j) = nullptr;
};

// In the order `moesweep sweep --help` lists them.
const Rows<SweepSetting>& sweep_settings();
// The setting with profile key `key`, or nullptr.
const SweepSetting* find_sweep_setting(const std::string& key);
const char* setting_level_name(SettingLevel level);

}  // namespace moesweep
