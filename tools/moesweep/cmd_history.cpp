// `moesweep history`: the releases' history and its change points (history_run.hpp).
#include <memory>

#include "commands.hpp"
#include "history_run.hpp"

namespace moesweep::cli {

void add_history_command(CLI::App& app, CommandRunner& run) {
  auto a = std::make_shared<HistoryArgs>();
  CLI::App* cmd = app.add_subcommand(
      "history",
      "the same twin and settings on each release in order, a table and a plot per metric, and "
      "where each changed (change points)");
  cmd->add_option("--engines", a->engines,
                  "r1,...,rN in release order: registered names, release versions or checkouts "
                  "(registered on first use)");
  cmd->add_option("--releases", a->releases,
                  "A..B: every pinned release from A to B (profiles/engines/node-llama-cpp.json), "
                  "registered as release-VERSION where it is not yet");
  cmd->add_option("--baselines", a->baselines,
                  "a baseline store (this machine's class) or one class folder: its stored runs "
                  "in order, nothing measured");
  cmd->add_option("--run", a->run,
                  "a finished wall-time history's sweep (history-<time>/<run>): its releases "
                  "read again, nothing measured (another --alpha or --min-step)");
  cmd->add_flag("--counts", a->counts,
                "exact counts under valgrind (--counters sim): instructions, LL misses and DRAM "
                "bytes per token, one run per engine");
  cmd->add_option("--profile", a->profile,
                  "sweep profile (default ci-ab; ci-counts with --counts)");
  cmd->add_option("--out-dir", a->out_dir, "where the history's run directory is made")
      ->capture_default_str();
  cmd->add_option("--tolerance", a->tolerance,
                  "counts: a step beyond this many percent between neighbouring releases is a "
                  "change point")
      ->capture_default_str()
      ->check(positive(100));
  cmd->add_option("--alpha", a->alpha,
                  "wall time: each change point's permutation p at most this (the false-alarm "
                  "rate of a series without change)")
      ->capture_default_str()
      ->check(positive(0.5));
  cmd->add_option("--permutations", a->permutations, "wall time: the permutation test's draws")
      ->capture_default_str()
      ->check(in_range(19, 99999));
  cmd->add_option("--min-step", a->min_step,
                  "wall time: a change point's step is at least this many percent, either way "
                  "(two worker processes of one build differ by up to 3%; 0 = any)")
      ->capture_default_str()
      ->check(in_range(0, 99));
  cmd->add_option("--jobs", a->jobs,
                  "--counts: measure this many releases at once, each in a sweep of its own "
                  "(counts do not depend on the load; each valgrind takes one CPU)")
      ->capture_default_str()
      ->check(in_range(1, 256));
  cmd->add_flag("--dry-run", a->dry_run, "say what would be registered and run; run nothing");
  cmd->add_flag("--quiet", a->quiet, "no progress line on stderr");
  cmd->callback([&run, a] { run = [a] { return run_history(*a); }; });
}

}  // namespace moesweep::cli
