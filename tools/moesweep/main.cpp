// moesweep: one CLI, one subcommand per job. Errors the user can fix come out
// as three lines (problem, expected, fix) and a documented exit code.
#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "hw/build_info.hpp"
#include "sweep_options.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {
std::vector<std::string> g_invocation;
}
const std::vector<std::string>& invocation() {
  return g_invocation;
}
}  // namespace moesweep::cli

int main(int argc, char** argv) {
  moesweep::cli::g_invocation.assign(argv, argv + argc);
  using namespace moesweep;
  CLI::App app{
      "moesweep: sweep-bench for Mixture-of-Experts inference on CPUs (llama.cpp in-process)"};
  app.set_version_flag("--version", [] { return version_text(); });
  app.require_subcommand(1);
  cli::CommandRunner run;
  cli::add_synth_command(app, run);
  cli::add_sweep_command(app, run);
  cli::add_list_command(app, run);
  cli::add_hw_command(app, run);
  cli::add_inspect_command(app, run);
  cli::add_predict_command(app, run);
  cli::add_compare_command(app, run);
  cli::add_baseline_command(app, run);
  cli::add_report_command(app, run);
  cli::add_export_command(app, run);
  cli::add_counters_command(app, run);
  try {
    std::vector<std::string> args = cli::translate_llama_style_flags(argc, argv);
    app.parse(args);
    return run ? run() : exit_code::kOk;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const UserError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "moesweep: error: {}\n", e.problem());
    if (!e.expected().empty()) fmt::print(stderr, "  expected: {}\n", e.expected());
    if (!e.fix().empty()) fmt::print(stderr, "  fix: {}\n", e.fix());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr,
               "moesweep: internal error: {}\n  please report it with the command line you ran\n",
               e.what());
    return exit_code::kFailure;
  }
}
