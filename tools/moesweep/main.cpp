// moesweep: one CLI, one subcommand per job. Errors the user can fix come out
// as three lines (problem, expected, fix) and a documented exit code.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli_checks.hpp"
#include "commands.hpp"
#include "engine/engine.hpp"
#include "hw/build_info.hpp"
#include "sweep_options.hpp"
#include "util/error.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {
std::vector<std::string> g_invocation;

std::string subcommand_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty())  // hidden ones (__cotenant) are internal
      names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// CLI11 reports a name it does not know as "A subcommand is required"; say
// what was typed instead. `args` is in CLI11's reversed order.
void check_subcommand_name(const CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty()) return;
  const std::string& first = args.back();
  if (first.empty() || first[0] == '-') return;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == first) return;
  throw UserError(fmt::format("unknown subcommand '{}'", first),
                  fmt::format("one of: {}", subcommand_names(app)), "see `moesweep --help`");
}

// CLI11's own errors (unknown flag, bad value, missing argument) are usage
// errors: the documented exit 2 and the same three-part message as ours.
UserError usage_error(const CLI::App& app, const CLI::ParseError& e) {
  std::string where = "moesweep";
  for (const CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
  if (where == "moesweep")
    return UserError(e.what(), fmt::format("a subcommand: {}", subcommand_names(app)),
                     "see `moesweep --help`");
  return UserError(e.what(), fmt::format("the arguments `{} --help` lists", where),
                   fmt::format("see `{} --help`", where));
}
// --version names the engine build its worker reports; a worker that does not
// start is said so, with the reason, after moesweep's own version.
std::string version_with_engine() {
  try {
    return version_text(engine_facts());
  } catch (const std::exception& e) {
    return fmt::format("moesweep {}\nengine: unavailable: {}\n", build_info().moesweep_version,
                       e.what());
  }
}
}  // namespace

UserError filesystem_error(const std::filesystem::filesystem_error& e) {
  std::string paths = e.path1().string();
  if (!e.path2().empty()) paths += "' and '" + e.path2().string();
  return UserError(fmt::format("the file system refused '{}': {}", paths, e.code().message()),
                   "paths this user can read and write (directories where directories belong)",
                   "check the path, its permissions and free space");
}

const std::vector<std::string>& invocation() {
  return g_invocation;
}
}  // namespace moesweep::cli

namespace {
// The three parts, each wrapped to the terminal's 120 columns when stderr is
// one (a log or a pipe keeps a part per line, for grep).
int print_user_error(const moesweep::UserError& e) {
  std::fflush(stdout);
  const bool wrap = moesweep::stderr_is_terminal();
  auto part = [wrap](const std::string& text, const char* indent) {
    const std::string line =
        wrap ? moesweep::wrap_words(text, moesweep::kTerminalWidth, indent) : text;
    fmt::print(stderr, "{}\n", line);
  };
  part("moesweep: error: " + e.problem(), "  ");
  if (!e.expected().empty()) part("  expected: " + e.expected(), "    ");
  if (!e.fix().empty()) part("  fix: " + e.fix(), "    ");
  return e.exit_code();
}
}  // namespace

int main(int argc, char** argv) {
  moesweep::cli::g_invocation.assign(argv, argv + argc);
  using namespace moesweep;
  CLI::App app{
      "moesweep: sweep-bench for Mixture-of-Experts inference on CPUs (llama.cpp, run in a "
      "worker process)",
      "moesweep"};
  app.set_version_flag("--version", [] { return cli::version_with_engine(); });
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
  cli::add_gate_command(app, run);
  cli::add_history_command(app, run);
  cli::add_bisect_command(app, run);
  cli::add_report_command(app, run);
  cli::add_export_command(app, run);
  cli::add_counters_command(app, run);
  cli::add_plan_command(app, run);
  cli::add_merge_command(app, run);
  cli::add_slurm_command(app, run);
  cli::add_trace_command(app, run);
  cli::add_l3_command(app, run);
  cli::add_l3_run_command(app, run);
  cli::add_serve_bench_command(app, run);
  cli::add_engine_command(app, run);
  cli::add_cotenant_command(app, run);
  cli::require_decimal_numbers(app);
  try {
    std::vector<std::string> args = cli::translate_llama_style_flags(argc, argv);
    cli::check_subcommand_name(app, args);
    app.parse(args);
    return run ? run() : exit_code::kOk;
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0 in CLI11.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    return print_user_error(cli::usage_error(app, e));
  } catch (const UserError& e) {
    return print_user_error(e);
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave or the machine holds (a file where a directory
    // belongs, /proc, a symlink loop): theirs to fix, not a bug of ours.
    return print_user_error(cli::filesystem_error(e));
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr,
               "moesweep: internal error: {}\n  please report it with the command line you ran\n",
               e.what());
    return exit_code::kFailure;
  }
}
