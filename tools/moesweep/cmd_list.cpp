// `moesweep list`: what ships with the tool (model and sweep profiles, quant types);
// `moesweep help-flags`: every sweep flag and profile key (--markdown: the table of docs/sweep.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "model/model_profile.hpp"
#include "model/quant_types.hpp"
#include "sweep/flag_spellings.hpp"
#include "util/paths.hpp"

namespace moesweep::cli {

namespace {

std::vector<std::string> sweep_profile_names() {
  const auto dir = profiles_dir() / "sweeps";
  std::vector<std::string> sweeps;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") sweeps.push_back(e.path().stem().string());
  std::sort(sweeps.begin(), sweeps.end());
  return sweeps;
}

int print_json() {
  nlohmann::json out = {{"model_profiles", nlohmann::json::array()},
                        {"sweep_profiles", sweep_profile_names()},
                        {"quant_types", nlohmann::json::array()}};
  for (const std::string& name : list_model_profiles()) {
    const ModelProfile p = load_model_profile(name);
    const ParamCount c = count_params(p);
    nlohmann::json scales = {"full"};
    for (const auto& [k, v] : p.scales) scales.push_back(k);
    out["model_profiles"].push_back({{"name", name},
                                     {"arch", p.arch},
                                     {"description", p.description},
                                     {"scales", scales},
                                     {"total_params", c.total},
                                     {"active_params", c.active}});
  }
  for (const QuantType& q : quant_types()) out["quant_types"].push_back(q.name);
  fmt::print("{}\n", out.dump(2));
  return 0;
}

int print_text() {
  fmt::print("model profiles (profiles/models):\n");
  for (const std::string& name : list_model_profiles()) {
    const ModelProfile p = load_model_profile(name);
    const ParamCount c = count_params(p);
    fmt::print("  {:<14} {:<9} {}\n", name, p.arch, p.description);
    fmt::print("  {:<14} {:<9} scales: full", "", "");
    for (const auto& [k, v] : p.scales) fmt::print(", {}", k);
    fmt::print("; {:.0f}B total, {:.1f}B active\n", c.total / 1e9, c.active / 1e9);
  }
  fmt::print("sweep profiles (profiles/sweeps):\n  {}\n", fmt::join(sweep_profile_names(), ", "));
  fmt::print("quant types for twins:\n  ");
  for (const QuantType& q : quant_types()) fmt::print("{} ", q.name);
  fmt::print("\n");
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, CommandRunner& run) {
  CLI::App* cmd =
      app.add_subcommand("list", "list shipped model profiles, sweep profiles and quant types");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "as JSON");
  cmd->callback([&run, json] { run = [json] { return *json ? print_json() : print_text(); }; });
  // The sweep's settings table; --markdown as docs/sweep.md holds it (between
  // its flags markers; tests/spec/flag_table_test.cpp compares the two).
  CLI::App* flags = app.add_subcommand(
      "help-flags", "every sweep flag and profile key, its level and meaning (docs/sweep.md)");
  auto markdown = std::make_shared<bool>(false);
  flags->add_flag("--markdown", *markdown, "as the Markdown table of docs/sweep.md");
  flags->callback([&run, markdown] {
    run = [markdown] {
      fmt::print("{}", *markdown ? sweep_settings_markdown() : sweep_settings_text());
      return 0;
    };
  });
}

}  // namespace moesweep::cli
