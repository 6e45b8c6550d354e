// `moesweep l3-run`: the working-set experiment end to end
// (experiments/l3_experiment.hpp): the usable cache, a memory-bound shape (or
// the verdict that this machine cannot show a cache effect, and why), every
// pool in randomised blocks with the dense twin, the cliff with 95% CIs and
// the cache models validated. Parses, runs it, prints what it found.
#include <fmt/format.h>

#include "commands.hpp"
#include "experiments/l3_experiment.hpp"
#include "l3_sim_run.hpp"
#include "l3_validate.hpp"
#include "sweep_progress.hpp"

namespace moesweep::cli {
namespace {

struct L3RunFlags {
  L3RunSettings run;
  std::string out_dir = "results/runs";
  std::string db;     // "" = no database
  bool dense = true;  // the dense twin of the same active bytes beside the MoE twins
  bool quiet = false;
};

void print_cache(const CacheProbeResult& probe) {
  fmt::print("usable L3 {:.2f} MiB (1 thread), {:.2f} MiB (all threads); hwloc says {:.1f} MiB\n",
             probe.effective_l3_bytes / 1048576.0, probe.effective_l3_bytes_all / 1048576.0,
             probe.nominal_l3_bytes / 1048576.0);
}

void print_pilot(const PilotResult& p) {
  fmt::print("pilot {}: {}\n", p.shape.text(),
             p.span_ok ? fmt::format("S_TG {:.0f} t/s at {} experts, memory-bound share {:.0f}%",
                                     p.s_tg, p.experts, 100 * p.memory_bound_share)
                       : "no expert size gives the span: skipped");
}

L3RunOptions options_of(const L3RunFlags& f) {
  return {f.run,        f.out_dir,
          f.db,         f.dense,
          invocation(), [quiet = f.quiet] { return std::make_unique<SweepProgress>(quiet); }};
}

int run_l3_run(const L3RunOptions& o) {
  const L3RunEvents events{
      [] {
        fmt::print(
            "measuring the usable cache and the expert GEMV once (moesweep hw --cache) ...\n");
      },
      print_cache, print_pilot};
  const L3RunOutcome out = run_l3_experiment(o, events);
  if (!out.report.verdict.empty()) {
    fmt::print("{}\n", out.report.verdict);
    return 0;
  }
  if (out.report.working_set) fmt::print("\n{}", working_set_markdown(*out.report.working_set));
  if (out.validation) print_l3_validation(*out.validation);
  if (!out.report.validation_error.empty())
    fmt::print("validation: {}\n", out.report.validation_error);
  fmt::print("wrote {}\n", out.result_file.string());
  return 0;
}

}  // namespace

void add_l3_run_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<L3RunFlags>();
  auto sim = std::make_shared<L3SimCli>();
  CLI::App* cmd =
      app.add_subcommand("l3-run",
                         "the working-set experiment end to end: usable cache, memory-bound shape, "
                         "interleaved blocks, cliff with 95% CIs, cache models validated");
  cmd->add_option("-r,--repetitions", o->run.repetitions, "repetitions per point and block")
      ->capture_default_str()
      ->check(in_range(1, 1000));
  cmd->add_option("--blocks", o->run.blocks, "randomised blocks (every twin in each)")
      ->capture_default_str()
      ->check(in_range(3, 100));
  cmd->add_option("--block-seed", o->run.block_seed, "seed of the block orders")
      ->capture_default_str()
      ->check(in_range(0, std::numeric_limits<int32_t>::max()));
  cmd->add_option("-n,--n-gen", o->run.n_gen, "generated tokens per repetition")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  cmd->add_option("--name", o->run.name, "run name")->capture_default_str();
  cmd->add_option("--out-dir", o->out_dir, "where runs go")->capture_default_str();
  cmd->add_option("--db", o->db, "results database (default: none)");
  cmd->add_flag("!--no-dense", o->dense, "leave out the dense twin of the same active bytes");
  cmd->add_flag("--quiet", o->quiet, "no progress on stderr");
  add_l3_sim_options(*cmd, *sim);
  cmd->callback([&run, o, sim] {
    run = [o, sim] {
      const L3RunOptions options = options_of(*o);
      return sim->simulate ? run_l3_sim(*sim, options) : run_l3_run(options);
    };
  });
}

}  // namespace moesweep::cli
