#include "sweep/flag_spellings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "sweep/sweep_settings.hpp"

#include "util/terminal_text.hpp"

namespace moesweep {

std::vector<std::string> rewrite_llama_aliases(std::vector<std::string> args) {
  static const std::map<std::string, std::string> aliases = [] {
    std::map<std::string, std::string> out;
    for (const SweepSetting& s : sweep_settings())
      if (s.llama_alias) out[s.llama_alias] = std::string("--") + s.key;
    return out;
  }();
  for (std::string& arg : args) {
    if (arg == "--") break;
    const size_t eq = arg.find('=');
    const auto it = aliases.find(arg.substr(0, eq));
    if (it != aliases.end()) arg = it->second + (eq == std::string::npos ? "" : arg.substr(eq));
  }
  return args;
}

namespace {

// A cell's text with Markdown's column separator escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// "-t,--threads" -> "`-t`, `--threads`".
std::string flag_cell(const SweepSetting& s) {
  if (!s.cli_names) return "(profile only)";
  std::string out, names = s.cli_names;
  for (size_t start = 0; start <= names.size();) {
    const size_t comma = std::min(names.find(',', start), names.size());
    out += fmt::format("{}`{}`", out.empty() ? "" : ", ", names.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string meaning(const SweepSetting& s) {
  switch (s.kind) {
    case SettingKind::kSwitch:
      return fmt::format("{} (a switch; `true` in a profile)", s.help);
    case SettingKind::kRepeated:
      return fmt::format("{} (may be repeated; `;` between values in a profile)", s.help);
    case SettingKind::kValue:
    case SettingKind::kProfileOnly:
      break;
  }
  return s.help;
}

}  // namespace

std::string sweep_settings_markdown() {
  std::string out =
      "| flag | llama.cpp alias | profile key | level | meaning |\n"
      "|---|---|---|---|---|\n";
  for (const SweepSetting& s : sweep_settings())
    out += fmt::format("| {} | {} | `{}` | {} | {} |\n", flag_cell(s),
                       s.llama_alias ? fmt::format("`{}`", s.llama_alias) : "", s.key,
                       setting_level_name(s.level), cell(meaning(s)));
  return out;
}

std::string sweep_settings_text() {
  std::string out;
  for (const SweepSetting& s : sweep_settings()) {
    std::string names = s.kind == SettingKind::kProfileOnly ? "(profile only)" : s.cli_names;
    if (s.llama_alias) names += fmt::format(" ({})", s.llama_alias);
    out += fmt::format("{}  [{}, key {}]\n", names, setting_level_name(s.level), s.key);
    out += wrap_words("    " + meaning(s), kTerminalWidth, "    ") + "\n";
  }
  return out;
}

}  // namespace moesweep
