// `moesweep sweep`: parse, hand the run to RunSession (src/sweep), print.
// The run's lifecycle (meta.json, resume, sinks, tables.md) is the
// session's; the tables' text comes from src/report.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <set>

#include "commands.hpp"
#include "engine/engine_util.hpp"
#include "hw/build_info.hpp"
#include "machine_here.hpp"
#include "report/run_tables.hpp"
#include "report/sweep_tables.hpp"
#include "sweep/cotenant.hpp"
#include "sweep/memory_plan.hpp"
#include "sweep/run_session.hpp"
#include "sweep_options.hpp"
#include "sweep_progress.hpp"
#include "sweep_shard.hpp"
#include "sweep_trace.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  g_stop.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills at once
}

int print_dry_run(const Plan& plan, const std::string& origin) {
  const nlohmann::json s = plan.summary();
  fmt::print("plan from {}: {} points, {} model load(s), {} context(s), {} thread switch(es)\n",
             origin, s["points"].get<int>(), s["model_loads"].get<int>(), s["contexts"].get<int>(),
             s["thread_switches"].get<int>());
  if (s.contains("engines"))
    fmt::print("engines {}: {}\n", fmt::join(s["engines"].get<std::vector<std::string>>(), ", "),
               s["engine_order"].get<std::string>());
  const uint64_t available = available_memory_bytes();
  for (const ModelGroup& mg : plan.models) {
    fmt::print("model {}{}{}\n", model_display_name(mg, plan.spec), knobs_text(mg.knobs),
               mg.choice.file.empty() ? " (twin, built on first use)" : "");
    const MemoryShape shape = memory_shape_of(mg, plan.spec);
    for (const ContextGroup& cg : mg.contexts) {
      fmt::print("  ctx {} b {} ub {} K {} V {} fa {}: depths {} | PP {} TG {} x{}{}{}\n",
                 cg.params.n_ctx, cg.params.n_batch, cg.params.n_ubatch, cg.params.type_k,
                 cg.params.type_v, flash_attn_name(cg.params.flash_attn), fmt::join(cg.depths, ","),
                 cg.n_prompt, plan.spec.n_gen, plan.spec.repetitions,
                 plan.spec.target_ci_pct > 0
                     ? fmt::format("..{} until the 95% CI is within {}%", plan.spec.max_repetitions,
                                   plan.spec.target_ci_pct)
                     : "",
                 cg.invalid_reason.empty() ? "" : "  INVALID: " + cg.invalid_reason);
      std::vector<std::string> threads;
      for (size_t i = 0; i < cg.threads.size(); ++i) {
        const ThreadSettings& t = cg.threads[i];
        const std::string cotenant = i < cg.cotenants.size() ? cg.cotenants[i] : "";
        threads.push_back(fmt::format("{}/{}{}{}", t.n_threads, t.n_threads_batch,
                                      t.cpu_mask.empty() ? "" : "@" + t.cpu_mask,
                                      cotenant.empty() ? "" : "+" + cotenant_label(cotenant)));
      }
      fmt::print("    threads (gen/batch): {}\n", fmt::join(threads, " "));
      const Footprint need = context_footprint(shape, cg.params, mg.load.load_mode);
      const std::string problem = footprint_problem(need, available, false);
      fmt::print("    memory ({}): {}{}\n", shape.model_source, footprint_text(need),
                 problem.empty() ? "" : "\n    DOES NOT FIT: " + problem);
    }
  }
  for (const std::string& w : plan.warnings) fmt::print("warning: {}\n", w);
  fmt::print("cost: {} timed tokens + {} fill tokens", s["timed_tokens"].get<int64_t>(),
             s["fill_tokens"].get<int64_t>());
  const auto estimate = estimate_seconds(plan);
  if (estimate)
    fmt::print(", about {:.0f} s at the speeds of earlier runs of these models\n", *estimate);
  else
    fmt::print("; no earlier run of these models to estimate the time from\n");
  return exit_code::kOk;
}

// Flags typed beside --resume that the resumed run would not use.
std::vector<std::string> flags_ignored_on_resume(const CLI::App& cmd) {
  static const std::set<std::string> kept = {"resume", "quiet",   "dry-run", "db",
                                             "no-db",  "keep-pp", "keep-tg", "help"};
  std::vector<std::string> given;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    if (!kept.count(opt->get_lnames().front())) given.push_back(opt->get_name(false, true));
  }
  return given;
}

// stdout's tables, the summary line and the exit code.
int finish(const SweepOptions& opts, RunSession& session, const RunOutcome& outcome) {
  const std::string tables = session.write_tables([&](const std::vector<Record>& r) {
    return render_run_tables(r, {opts.keep_pp, opts.keep_tg, 0});
  });
  const std::string dir = session.dir().path().string();
  std::fflush(stderr);
  fmt::print("{}", tables);
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

// A shard run (issue 13): the shard file's settings, or its unfinished run
// under --out-dir, with the plan cut down to the shard's points.
RunRequest shard_request_from(const SweepOptions& opts, const CLI::App& cmd,
                              const std::string& shard_arg, bool* already_complete) {
  refuse_sweep_flags_with_shard(opts);
  const ShardStart st = shard_start(shard_arg, opts.out_dir);
  for (const std::string& why : st.skipped)
    fmt::print(stderr, "[sweep] passed over a run that does not read: {}\n", why);
  RunRequest req = request_from(opts, cmd);
  req.resume.clear();
  req.ignored_on_resume.clear();
  req.settings = st.file.settings;
  req.origin = fmt::format("shard {}/{} of plan {}", st.file.index, st.file.count, st.file.plan_id);
  *already_complete = st.earlier_complete;
  if (!st.earlier_run.empty() && !st.earlier_complete) {
    req.resume = st.earlier_run;
    fmt::print(stderr, "[sweep] continuing {} in {}\n", req.origin, st.earlier_run.string());
  }
  const ShardRef shard = shard_meta(st.file);
  req.shard = shard;
  req.adjust_plan = [shard](Plan& plan, const std::optional<RunMeta>& resumed_meta) {
    const bool own = resumed_meta && resumed_meta->shard;
    restrict_to_shard(plan, shard_from_meta(own ? *resumed_meta->shard : shard));
  };
  return req;
}

// Measures with Ctrl-C (and SIGTERM) turned into a clean stop.
RunOutcome measure(RunSession& session) {
  g_stop = false;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  RunOutcome outcome;
  try {
    outcome = session.run(g_stop);
  } catch (const std::exception&) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    fmt::print(stderr,
               "[sweep] stopped by the error below; once it is fixed, continue with: "
               "moesweep sweep --resume {}\n",
               session.dir().path().string());
    throw;
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return outcome;
}

int run_sweep(const SweepOptions& opts, const CLI::App& cmd, const std::string& shard_arg) {
  bool shard_complete = false;
  RunRequest request = shard_arg.empty()
                           ? request_from(opts, cmd)
                           : shard_request_from(opts, cmd, shard_arg, &shard_complete);
  if (shard_complete) {
    fmt::print(stderr, "[sweep] {} is complete already; nothing to run\n", request.origin);
    return exit_code::kOk;
  }
  SweepProgress progress(opts.quiet);  // outlives the session, which ends it
  RunSession session(std::move(request));
  if (opts.dry_run) return print_dry_run(session.plan(), session.origin());
  session.listen(progress);
  session.open();
  for (const std::string& note : session.notes()) fmt::print(stderr, "[sweep] note: {}\n", note);
  fmt::print(stderr, "[sweep] run directory {}\n", session.dir().path().string());
  RunDirRoutingTraces traces(session.dir().path());
  if (opts.trace_routing) session.trace_routing_with(&traces);
  const RunOutcome outcome = measure(session);
  return finish(opts, session, outcome);
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
