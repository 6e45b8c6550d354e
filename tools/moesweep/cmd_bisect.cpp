// `moesweep bisect` and the judge it hands to `git bisect run` (bisect_run.hpp).
#include <memory>

#include "bisect_run.hpp"
#include "commands.hpp"

namespace moesweep::cli {

namespace {

void add_judge(CLI::App& app, CommandRunner& run) {
  auto a = std::make_shared<JudgeArgs>();
  CLI::App* cmd = app.add_subcommand("__bisect-judge", "one commit of a bisect (internal)");
  cmd->group("");  // hidden from --help
  cmd->add_option("--reference", a->reference)->required();
  cmd->add_option("--metric", a->metric)->required();
  cmd->add_option("--threshold", a->threshold)->required();
  cmd->add_option("--profile", a->profile)->required();
  cmd->add_option("--out-dir", a->out_dir)->required();
  cmd->add_option("--twin-for", a->twin_for);
  cmd->callback([&run, a] { run = [a] { return run_bisect_judge(*a); }; });
}

}  // namespace

void add_bisect_command(CLI::App& app, CommandRunner& run) {
  auto a = std::make_shared<BisectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bisect",
      "find the first release (or, with --checkout, the first commit) between --good and --bad "
      "whose count per token grew beyond --threshold; exact counts under valgrind, each build "
      "measured once");
  cmd->add_option("--good", a->good, "the good release (3.21.1) or, with --checkout, commit")
      ->required();
  cmd->add_option("--bad", a->bad, "the bad release or commit")->required();
  cmd->add_option("--metric", a->metric,
                  "pp_ or tg_ and a count of --counters sim: instructions_per_token, "
                  "data_reads_per_token, data_writes_per_token, d1_misses_per_token, "
                  "ll_misses_per_token, dram_bytes_per_token")
      ->capture_default_str();
  cmd->add_option("--threshold", a->threshold,
                  "growth in percent against --good that makes a build bad, in any cell")
      ->capture_default_str();
  cmd->add_option("--checkout", a->checkout,
                  "a llama.cpp git checkout: bisect its commits (git bisect run, in a worktree "
                  "of its own)");
  cmd->add_option("--profile", a->profile, "the sweep profile each build is counted with")
      ->capture_default_str();
  cmd->add_option("--out-dir", a->out_dir, "where its runs, engines and log are kept")
      ->capture_default_str();
  cmd->callback([&run, a] { run = [a] { return run_bisect(*a); }; });
  add_judge(app, run);
}

}  // namespace moesweep::cli
