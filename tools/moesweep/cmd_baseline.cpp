// `moesweep baseline add RUN_DIR STORE` files a run as a CI baseline under
// STORE/<machine class>/<run id>/ (machine paths stripped, newest --keep
// kept); `moesweep baseline find STORE` prints the class folder of this
// machine, or exits 2 with the command that records one. moesweep gate
// uses both.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "results/baseline_store.hpp"
#include "sweep/this_machine.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

struct BaselineArgs {
  std::string run_dir, store;
  int keep = 3;
};

int add_baseline(const BaselineArgs& a) {
  if (a.keep < 1) {
    throw UserError(fmt::format("--keep {} keeps no run", a.keep), "1 or more (default 3)",
                    "pass --keep 3");
  }
  const BaselineAdded added = record_baseline(a.run_dir, a.store, a.keep);
  for (const std::string& note : added.notes) fmt::print(stderr, "[baseline] note: {}\n", note);
  for (const auto& gone : added.removed)
    fmt::print(stderr, "[baseline] removed {} (--keep {})\n", gone.string(), a.keep);
  fmt::print("{}\n", added.member.string());
  fmt::print(stderr, "[baseline] class {} now holds {} run(s)\n",
             added.member.parent_path().filename().string(), added.runs);
  return exit_code::kOk;
}

int find_baseline(const BaselineArgs& a) {
  fmt::print("{}\n", require_baseline_class(a.store, this_machine_class()).string());
  return exit_code::kOk;
}

}  // namespace

void add_baseline_command(CLI::App& app, CommandRunner& run) {
  auto args = std::make_shared<BaselineArgs>();
  CLI::App* cmd = app.add_subcommand(
      "baseline", "CI baselines kept per machine class: add a run, find this machine's class");
  cmd->require_subcommand(1);
  CLI::App* add = cmd->add_subcommand(
      "add", "copy a run into STORE/<machine class>/<run id>/ without machine paths");
  add->add_option("run_dir", args->run_dir, "run directory written by moesweep sweep")->required();
  add->add_option("store", args->store, "baseline store, e.g. results/baselines/ci")->required();
  add->add_option("--keep", args->keep, "runs kept per class (the newest)")->capture_default_str();
  add->callback([&run, args] { run = [args] { return add_baseline(*args); }; });
  CLI::App* find = cmd->add_subcommand(
      "find", "print the class folder of this machine in STORE; exit 2 when there is none");
  find->add_option("store", args->store, "baseline store, e.g. results/baselines/ci")->required();
  find->callback([&run, args] { run = [args] { return find_baseline(*args); }; });
}

}  // namespace moesweep::cli
