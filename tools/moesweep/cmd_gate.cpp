// `moesweep gate`: the CI regression gate in one command (gate_run.hpp).
#include <memory>

#include "commands.hpp"
#include "gate_run.hpp"

namespace moesweep::cli {

namespace {
// A value, not nothing and not the next option: CLI11 takes the token after
// an option as its value even when it is another option (`--base --new pr`
// would compare an engine called "--new"), and an empty --base would fall
// back to the stored-baseline mode.
const CLI::Validator kAValue(
    [](std::string& s) {
      if (s.empty()) return std::string("an empty value");
      if (s.rfind("--", 0) == 0) return "'" + s + "' is another option, not this one's value";
      return std::string();
    },
    "a value");
}  // namespace

void add_gate_command(CLI::App& app, CommandRunner& run) {
  auto a = std::make_shared<GateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "gate",
      "the CI regression gate: --base SPEC against --new (this build) in one interleaved sweep, "
      "or a run against this machine's stored baselines; exit 0 pass, 4 regression, 5 "
      "inconclusive; writes gate.md and junit.xml beside the run");
  cmd->add_option("--base", a->base,
                  "the base engine: a registered name, a release version (3.21.1, registered as "
                  "release-3.21.1) or a llama.cpp checkout (registered as checkout-NAME-COMMIT); "
                  "without it the run is compared with --baseline")
      ->check(kAValue);
  cmd->add_option("--new", a->fresh, "the engine to check, same forms as --base")
      ->capture_default_str()
      ->check(kAValue);
  cmd->add_option("--profile", a->profile,
                  "sweep profile (default ci-ab; ci-counts with --counts; ci without --base)")
      ->check(kAValue);
  cmd->add_flag("--counts", a->counts,
                "the exact gate: both engines under valgrind (--counters sim), compared by "
                "instructions and LL misses per token");
  cmd->add_option("--target-mde", a->target_mde,
                  "repeat the points, engines interleaved, until every cell could see this "
                  "slowdown in percent (the sweep's --target-mde)")
      ->check(positive(100));
  cmd->add_option("--max-time", a->max_time, "with --target-mde: stop repeating after S seconds")
      ->check(positive());
  cmd->add_option("--out-dir", a->out_dir, "where the gate's run directory is made")
      ->capture_default_str()
      ->check(kAValue);
  cmd->add_option("--baseline", a->baseline,
                  "without --base: the store of per-class baselines to compare with")
      ->capture_default_str()
      ->check(kAValue);
  cmd->add_flag("--update", a->update,
                "without --base: file this run in --baseline (its machine class's folder) "
                "instead of comparing");
  cmd->add_option("--keep", a->keep, "with --update: runs kept per class")->capture_default_str();
  cmd->add_flag("--dry-run", a->dry_run, "say what would be registered and run; run nothing");
  cmd->add_flag("--quiet", a->quiet, "no progress line on stderr");
  add_compare_choice(*cmd, a->choice,
                     "pp, tg or both; with --counts count metrics (default "
                     "instructions,ll_misses)");
  cmd->callback([&run, a, cmd] {
    // CLI11 runs no validator on an empty value: --base "" would be the stored-baseline mode.
    if (cmd->count("--base") > 0 && a->base.empty())
      throw CLI::ValidationError("--base", "an empty value");
    run = [a] { return run_gate(*a); };
  });
}

}  // namespace moesweep::cli
