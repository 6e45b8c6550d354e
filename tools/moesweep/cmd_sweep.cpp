// `moesweep sweep`: parse, hand the run to RunSession (src/sweep), print.
// The run's lifecycle (meta.json, resume, sinks, tables.md) is the
// session's.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "cluster/shard_plan.hpp"
#include "commands.hpp"
#include "experiments/run_dir_traces.hpp"
#include "hw/build_info.hpp"
#include "sweep/run_session.hpp"
#include "sweep/this_machine.hpp"
#include "sweep_dry_run.hpp"
#include "sweep_options.hpp"
#include "sweep_progress.hpp"
#include "sweep_shard.hpp"
#include "util/error.hpp"
#include "util/stop_signal.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

// Flags typed beside --resume that the resumed run would not use.
std::vector<std::string> flags_ignored_on_resume(const CLI::App& cmd) {
  static const std::set<std::string> kept = {"resume",  "quiet",   "dry-run", "db",  "no-db",
                                             "keep-pp", "keep-tg", "help",    "wide"};
  std::vector<std::string> given;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    if (!kept.count(opt->get_lnames().front())) given.push_back(opt->get_name(false, true));
  }
  return given;
}

// stdout's tables, the summary line and the exit code.
int finish(const RunSession& session, const RunOutcome& outcome, bool wide) {
  const std::string dir = session.dir().path().string();
  std::fflush(stderr);
  fmt::print("{}", session.tables_text(wide ? TableWidth::kWide : TableWidth::kCompact));
  if (!wide && !session.tables_text(TableWidth::kWide).empty())
    fmt::print("\nEvery column: tables.md in the run directory (or sweep --wide).\n");
  std::fflush(stdout);
  fmt::print(stderr, "[sweep] {}: {} ok, {} failed{} -> {}\n", run_status_name(outcome.status),
             outcome.ok_points, outcome.failed_points,
             outcome.skipped_points ? fmt::format(", {} already done", outcome.skipped_points) : "",
             dir);
  if (outcome.status == RunStatus::kInterrupted)
    fmt::print(stderr, "[sweep] interrupted; continue with: moesweep sweep --resume {}\n", dir);
  return exit_code_for(outcome.status);
}

RunRequest request_from(const SweepOptions& opts, const CLI::App& cmd) {
  RunRequest req;
  if (opts.resume.empty()) {
    req.settings = opts.merged_settings(&req.origin);
    if (!opts.dry_run) req.machine_class = this_machine_class();
  } else {
    req.resume = opts.resume;
    req.ignored_on_resume = flags_ignored_on_resume(cmd);
  }
  if (!opts.profile.empty()) req.profile_stem = std::filesystem::path(opts.profile).stem().string();
  req.out_dir = opts.out_dir;
  req.database = {opts.db, cmd.count("--db") > 0, cmd.count("--no-db") > 0};
  req.sweet_spot = {opts.keep_pp, opts.keep_tg, 0};
  req.dry_run = opts.dry_run;
  req.logical_cpus = cpu_info().logical_cpus;
  req.command_line = invocation();
  if (!opts.dry_run) req.node = node_facts();  // issue 13: host, CPU, Slurm ids
  req.adjust_plan = [](Plan& plan, const std::optional<RunMeta>& resumed_meta) {
    if (resumed_meta && resumed_meta->shard)  // a resumed shard run keeps to its shard
      restrict_to_shard(plan, shard_from_meta(*resumed_meta->shard));
  };
  return req;
}

// Measures; Ctrl-C (and SIGTERM) stop it cleanly through `stop`.
RunOutcome measure(RunSession& session, const StopOnSignal& stop) {
  try {
    return session.run(stop.flag());
  } catch (const std::exception&) {
    fmt::print(stderr,
               "[sweep] stopped by the error below; once it is fixed, continue with: "
               "moesweep sweep --resume {}\n",
               session.dir().path().string());
    throw;
  }
}

int run_sweep(const SweepOptions& opts, const CLI::App& cmd, const std::string& shard_arg) {
  bool shard_complete = false;
  if (!shard_arg.empty()) refuse_sweep_flags_with_shard(opts);
  RunRequest request = shard_arg.empty()
                           ? request_from(opts, cmd)
                           : shard_request(request_from(opts, cmd), shard_arg, &shard_complete);
  if (shard_complete) {
    fmt::print(stderr, "[sweep] {} is complete already; nothing to run\n", request.origin);
    return exit_code::kOk;
  }
  SweepProgress progress(opts.quiet);  // outlives the session, which ends it
  // Ctrl-C and SIGTERM stop the run cleanly from here on, so whatever the
  // session holds is let go on that way out too (valgrind's temporary folder
  // of --counters sim, made while the worker's hello may still be pending).
  const StopOnSignal stop;
  RunSession session(std::move(request));
  if (opts.dry_run)
    return print_dry_run(session.plan(), session.origin(), session.sample_time().choice);
  session.listen(progress);
  session.open();
  for (const std::string& note : session.notes()) print_note("[sweep] note: " + note);
  fmt::print(stderr, "[sweep] run directory {}\n", session.dir().path().string());
  RunDirRoutingTraces traces(session.dir().path());
  if (opts.trace_routing) session.trace_routing_with(&traces);
  const RunOutcome outcome = measure(session, stop);
  return finish(session, outcome, opts.wide);
}

}  // namespace

void add_sweep_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<SweepOptions>();
  CLI::App* cmd =
      app.add_subcommand("sweep", "run a sweep: threads x depth x ctx x quant x batch x KV type");
  opts->add_to(*cmd);
  cmd->add_flag("--trace-routing", opts->trace_routing,
                "record each context's expert routing (routing-c<N>-<model>.trace.zst, see l3)");
  auto shard = std::make_shared<std::string>();
  add_shard_option(*cmd, *shard);
  cmd->callback([opts, cmd, shard, &run] {
    run = [opts, cmd, shard] { return run_sweep(*opts, *cmd, *shard); };
  });
}

}  // namespace moesweep::cli
