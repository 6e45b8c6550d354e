// `moesweep engine releases`: the llama.cpp releases `engine add --release`
// fetches (engine/release_pins.hpp), oldest first, with the tag each carries.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "engine/release_pins.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

int print_releases(bool json) {
  const std::vector<PinnedRelease> releases = pinned_releases();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const PinnedRelease& r : releases)
      out.push_back({{"version", r.version},
                     {"release", r.release},
                     {"source_date", r.source_date},
                     {"supported", r.unsupported.empty()},
                     {"unsupported", r.unsupported},
                     {"known_issue", r.known_issue},
                     {"source", r.source.package},
                     {"prebuilt", r.prebuilt.package}});
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("llama.cpp releases on npm ({}):\n", release_pins_file().string());
  fmt::print("  {:<8} {:<9} {:<10} {}\n", "version", "llama.cpp", "date", "worker");
  for (const PinnedRelease& r : releases) {
    // A reason or a known issue is a paragraph: wrapped under the worker column.
    const std::string indent(31, ' ');
    const std::string worker =
        r.unsupported.empty() ? "supported" : "not supported: " + r.unsupported;
    fmt::print("{}\n", wrap_words(fmt::format("  {:<8} {:<9} {:<10} {}", r.version, r.release,
                                              r.source_date, worker),
                                  kTerminalWidth, indent));
    if (!r.known_issue.empty())
      fmt::print("{}\n", wrap_words(indent + "known issue: " + r.known_issue, kTerminalWidth,
                                    indent + "  "));
  }
  fmt::print("register one: moesweep engine add NAME --release VERSION [--from-source]\n");
  return 0;
}

}  // namespace

void add_engine_releases_command(CLI::App& engine, CommandRunner& run) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = engine.add_subcommand(
      "releases", "the llama.cpp releases engine add --release can fetch, pinned by sha256");
  cmd->add_flag("--json", *json, "as JSON");
  cmd->callback([&run, json] { run = [json] { return print_releases(*json); }; });
}

}  // namespace moesweep::cli
