#include "gate_run.hpp"

#include "gate_judge.hpp"

#include <fmt/format.h>

#include <chrono>

#include "engine/engine_registry.hpp"
#include "engine/engine_spec.hpp"
#include "engine_sweep.hpp"
#include "results/baseline_store.hpp"
#include "results/compare_sides.hpp"
#include "sweep/this_machine.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kCountMetrics = "instructions,ll_misses";

void gate_say(const std::string& line) {
  fmt::print(stderr, "[gate] {}\n", line);
}

std::string profile_of(const GateArgs& a) {
  if (!a.profile.empty()) return a.profile;
  return a.counts ? "ci-counts" : (a.base.empty() ? "ci" : "ci-ab");
}

// The checks a user can fail before anything is registered or measured.
void check_gate_args(const GateArgs& a, const CompareChoice& choice) {
  const auto refuse = [](const std::string& what, const std::string& expected,
                         const std::string& fix) { throw UserError(what, expected, fix); };
  if (a.counts && a.base.empty())
    refuse("--counts without --base", "--base SPEC: both engines are counted in one sweep",
           "add --base 3.21.1 (or a registered engine, or a checkout)");
  if (a.counts && (!a.target_mde.empty() || !a.max_time.empty()))
    refuse("--counts with --target-mde or --max-time", "neither: counts repeat exactly",
           "drop --target-mde and --max-time");
  if (!a.counts && choice.counts())
    refuse("count metrics without --counts", "--counts to measure them under valgrind",
           "add --counts, or give --metric pp, tg or both");
  if (a.update && !a.base.empty())
    refuse("--update with --base", "--update alone: it files this run as a stored baseline",
           "drop --base to record a baseline, or --update to run the A/B gate");
  if (a.keep < 1)
    refuse(fmt::format("--keep {} keeps no run", a.keep), "1 or more (default 3)", "pass --keep 3");
  choice.options();  // every compare choice checked now, not after the sweep
}

int finish_sweep_or_stop(const EngineSweepRun& run) {
  if (run.status == RunStatus::kInterrupted) {
    gate_say("interrupted: no verdict");
    return exit_code::kInterrupted;
  }
  if (run.status == RunStatus::kPointsFailed)
    gate_say(fmt::format("{} point(s) failed: listed in compare.md; the gate cannot pass",
                         run.failed_points));
  return -1;
}

int ab_gate(const GateArgs& a, CompareChoice choice) {
  const EngineSpec base = resolve_engine_spec(a.base, "--base");
  const EngineSpec fresh = resolve_engine_spec(a.fresh, "--new");
  if (base.name == fresh.name)
    throw UserError(
        fmt::format("base and new are the same engine ('{}'): nothing to compare", base.name),
        "two engines", "give --new another engine (default: this build's own)");
  EngineSweep sweep{
      profile_of(a), {{"engine", base.name + "," + fresh.name}}, a.out_dir, {}, a.quiet};
  if (a.counts) sweep.overrides["counters"] = "sim";
  if (!a.target_mde.empty()) sweep.overrides["target-mde"] = a.target_mde;
  if (!a.max_time.empty()) sweep.overrides["max-time"] = a.max_time;
  const fs::path registry = engine_registry_dir();
  if (a.dry_run) {
    for (const EngineSpec* s : {&base, &fresh})
      gate_say(is_registered(registry, s->name)
                   ? fmt::format("engine '{}' is registered", s->name)
                   : fmt::format("would register: moesweep engine add {} {}", s->name,
                                 s->build ? s->add_arguments : "(not registered: exit 2)"));
    gate_say("would run: " + sweep_command_text(sweep) + ", then compare --engines " + base.name +
             "," + fresh.name);
    return exit_code::kOk;
  }
  const Clock::time_point started = Clock::now();
  for (const EngineSpec* s : {&base, &fresh}) ensure_registered(registry, *s, engine_add_progress);
  gate_say(fmt::format("A/B: {} against {}, interleaved (profile {})", base.name, fresh.name,
                       sweep.profile));
  const EngineSweepRun run = run_engine_sweep(sweep);
  if (const int stop = finish_sweep_or_stop(run); stop >= 0) return stop;
  const CompareSides sides{
      run.dir.string(), "", base.name + "," + fresh.name, {}, choice.allow_environment_change};
  return judge_gate({a.counts, choice, sides, run.failed_points}, {base.name, fresh.name}, run.dir,
                    started);
}

int stored_gate(const GateArgs& a, const CompareChoice& choice) {
  const EngineSweep sweep{
      profile_of(a), {}, a.out_dir, fs::path(a.out_dir) / "gate.sqlite", a.quiet};
  if (a.dry_run) {
    gate_say("would run: " + sweep_command_text(sweep) + ", then " +
             (a.update ? "add it to " : "compare it with ") + a.baseline);
    return exit_code::kOk;
  }
  // Before the sweep: a baseline of this machine's class (exit 2 says how to record one).
  if (!a.update && !choice.allow_environment_change)
    require_baseline_class(a.baseline, this_machine_class());
  const Clock::time_point started = Clock::now();
  const EngineSweepRun run = run_engine_sweep(sweep);
  if (const int stop = finish_sweep_or_stop(run); stop >= 0) return stop;
  if (a.update) {
    const BaselineAdded added = record_baseline(run.dir, a.baseline, a.keep);
    gate_say(
        fmt::format("filed {} ({} run(s) of this class kept)", added.member.string(), added.runs));
    return exit_code::kOk;
  }
  const CompareSides sides{a.baseline, run.dir.string(), "", {}, choice.allow_environment_change};
  return judge_gate({a.counts, choice, sides, run.failed_points},
                    {a.baseline, run.dir.filename().string()}, run.dir, started);
}

}  // namespace

int run_gate(const GateArgs& args) {
  CompareChoice choice = args.choice;
  if (args.counts && choice.metric == CompareChoice{}.metric) choice.metric = kCountMetrics;
  check_gate_args(args, choice);
  return args.base.empty() ? stored_gate(args, choice) : ab_gate(args, choice);
}

}  // namespace moesweep::cli
