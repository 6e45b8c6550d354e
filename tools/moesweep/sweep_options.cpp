#include "sweep_options.hpp"

#include <algorithm>

#include "cli_checks.hpp"
#include "sweep/flag_spellings.hpp"
#include "sweep/sweep_settings.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep::cli {

void SweepOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--profile", profile, "sweep profile: a name in profiles/sweeps or a JSON path");
  cmd.add_option("--out-dir", out_dir, "where run directories are made")->capture_default_str();
  cmd.add_option("--db", db, "SQLite results store")->capture_default_str();
  cmd.add_flag("--no-db", no_db, "do not write the SQLite store");
  cmd.add_option("--resume", resume, "continue an interrupted run (its directory)");
  cmd.add_flag("--dry-run", dry_run, "print the expanded plan and its estimated cost, run nothing");
  cmd.add_flag("--quiet", quiet, "no progress line on stderr");
  cmd.add_flag("--wide", wide,
               "print the tables with every column, as tables.md has them (default: a terminal's "
               "120 columns)");
  cmd.add_option("--keep-pp", keep_pp,
                 "sweet spot: fraction of the best S_PP to keep (0 ignores prefill)")
      ->capture_default_str()
      ->check(in_range(0.0, 1.0));
  cmd.add_option("--keep-tg", keep_tg,
                 "sweet spot: fraction of the best S_TG to keep (0 ignores decode)")
      ->capture_default_str()
      ->check(in_range(0.0, 1.0));
  // Every setting of sweep_settings() (src/sweep/sweep_settings.cpp) but a
  // profile's own keys: the flags and the profile keys are one list.
  for (const SweepSetting& s : sweep_settings()) {
    switch (s.kind) {
      case SettingKind::kValue:
        value_options.push_back(cmd.add_option(s.cli_names, values[s.key], s.help));
        break;
      case SettingKind::kRepeated:
        value_options.push_back(cmd.add_option(s.cli_names, repeated[s.key], s.help));
        break;
      case SettingKind::kSwitch:
        flag_options.push_back(cmd.add_flag(s.cli_names, flags[s.key], s.help));
        break;
      case SettingKind::kProfileOnly:
        break;
    }
  }
}

std::map<std::string, nlohmann::json> SweepOptions::merged_settings(std::string* origin) const {
  std::map<std::string, nlohmann::json> settings;
  *origin = "command line";
  if (!profile.empty()) settings = load_sweep_profile(profile, origin);
  settings.erase("description");
  for (const CLI::Option* opt : value_options) {
    if (opt->count() == 0) continue;
    const std::string key = opt->get_lnames().front();
    if (repeated.count(key)) {
      std::string joined;
      for (const std::string& v : repeated.at(key)) joined += (joined.empty() ? "" : ";") + v;
      settings[key] = joined;
    } else {
      settings[key] = values.at(key);
    }
  }
  for (const CLI::Option* opt : flag_options)
    if (opt->count() > 0) settings[opt->get_lnames().front()] = true;
  return settings;
}

std::vector<std::string> translate_llama_style_flags(int argc, char** argv) {
  std::vector<std::string> out = rewrite_llama_aliases({argv + 1, argv + argc});
  std::reverse(out.begin(), out.end());  // CLI11's parse(vector) takes arguments in reverse
  return out;
}

}  // namespace moesweep::cli
