#pragma once
// The one list of a sweep's settings: each row is a profile key (the flag's
// long name), its CLI spelling(s), its help line, what kind of value it takes
// and the level of the plan it acts on. The profile parser's known keys
// (sweep_spec.cpp), the CLI11 options and llama.cpp's single-dash aliases
// (tools/moesweep/sweep_options.cpp) are all derived from it, so a setting
// never works in a profile but not as a flag (or the other way round).
#include <string>
#include <vector>

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

struct SweepSetting {
  const char* key;          // profile key = long flag name
  const char* cli_names;    // CLI11 names ("-t,--threads"); nullptr for kProfileOnly
  const char* llama_alias;  // llama.cpp's single-dash spelling ("-tb"), or nullptr
  const char* help;
  SettingKind kind = SettingKind::kValue;
  SettingLevel level = SettingLevel::kRun;
};

// In the order `moesweep sweep --help` lists them.
const std::vector<SweepSetting>& sweep_settings();
// The setting with profile key `key`, or nullptr.
const SweepSetting* find_sweep_setting(const std::string& key);
const char* setting_level_name(SettingLevel level);

}  // namespace moesweep
