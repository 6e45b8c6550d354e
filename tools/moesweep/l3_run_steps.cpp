#include "l3_run_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "analysis/run_dir_traces.hpp"
#include "commands.hpp"
#include "hw/build_info.hpp"
#include "report/run_tables.hpp"
#include "results/run_source.hpp"
#include "sweep/run_session.hpp"
#include "sweep/this_machine.hpp"
#include "sweep_progress.hpp"

namespace moesweep::cli {
namespace {

RunRequest request_for(std::map<std::string, nlohmann::json> settings, const L3RunOptions& o,
                       bool dry_run) {
  RunRequest req;
  req.settings = std::move(settings);
  req.origin = "moesweep l3-run";
  req.out_dir = o.out_dir;
  req.database = {o.db, !o.db.empty(), o.db.empty()};
  req.dry_run = dry_run;
  req.logical_cpus = cpu_info().logical_cpus;
  req.command_line = invocation();
  if (!dry_run) req.machine_class = this_machine_class();
  return req;
}

// Runs a session to its end; returns its directory.
std::filesystem::path measure(RunSession& session, bool quiet, bool trace) {
  SweepProgress progress(quiet);
  session.listen(progress);
  session.open();
  RunDirRoutingTraces traces(session.dir().path());
  if (trace) session.trace_routing_with(&traces);
  const std::atomic<bool> stop{false};
  session.run(stop);
  session.write_tables([](const std::vector<Record>& r) { return render_run_tables(r); });
  return session.dir().path();
}

double number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0;
}

}  // namespace

void check_l3_run_options(const L3RunOptions& o) {
  auto settings = l3_sweep_settings(l3_shape_ladder(1).front(), o.run, o.dense ? 256 : 0);
  settings["experts"] = "8";  // auto-l3 would measure the cache first
  const RunSession plan_only(request_for(settings, o, true));
}

PilotResult run_pilot(const L3Shape& shape, const L3RunOptions& o) {
  PilotResult p;
  p.shape = shape;
  L3RunSettings pilot = o.run;
  pilot.blocks = 1;
  pilot.repetitions = 3;
  pilot.name = o.run.name + "-pilot";
  auto settings = l3_sweep_settings(shape, pilot, 0);
  const RunSession plan_only(request_for(settings, o, true));
  const Plan& plan = plan_only.plan();
  p.span_ok = true;
  for (const std::string& w : plan.warnings) {
    if (w.rfind("auto-l3", 0) != 0) continue;
    if (w.find("no expert FFN") != std::string::npos) p.span_ok = false;
    p.plan_note += (p.plan_note.empty() ? "" : "; ") + w;
  }
  const auto largest = std::max_element(
      plan.models.begin(), plan.models.end(),
      [](const ModelGroup& a, const ModelGroup& b) { return a.knobs.experts < b.knobs.experts; });
  if (!p.span_ok || largest == plan.models.end()) return p;
  p.experts = largest->knobs.experts;
  p.expert_ff = largest->knobs.expert_ff;
  p.moe_active_params = static_cast<double>(
      count_params(twin_spec_of(largest->choice, largest->knobs, plan.spec).profile).active);
  settings["experts"] = std::to_string(p.experts);
  if (p.expert_ff > 0) settings["expert-ff"] = p.expert_ff;
  RunSession session(request_for(settings, o, false));
  p.run_dir = measure(session, o.quiet, false);
  for (const Record& r : read_records_jsonl(p.run_dir / "records.jsonl")) {
    if (!r.ok || !r.extra.contains("roofline")) continue;
    const nlohmann::json& roof = r.extra["roofline"];
    p.s_tg = r.tg.speed.mean;
    p.routed_bytes_per_token = number(roof, "routed_bytes_per_token");
    p.kernel_gbps = number(roof, "kernel_gemv_out_of_cache_gbps");
  }
  p.m = memory_bound_share(p.s_tg, p.routed_bytes_per_token, p.kernel_gbps);
  return p;
}

std::filesystem::path run_experiment(const L3Shape& shape, int dense_ff, const L3RunOptions& o) {
  RunSession session(request_for(l3_sweep_settings(shape, o.run, dense_ff), o, false));
  return measure(session, o.quiet, true);
}

std::filesystem::path run_l3_sweep(std::map<std::string, nlohmann::json> settings,
                                   const L3RunOptions& o, const std::filesystem::path& out_dir,
                                   bool trace) {
  L3RunOptions here = o;
  here.out_dir = out_dir.string();
  RunSession session(request_for(std::move(settings), here, false));
  return measure(session, o.quiet, trace);
}

}  // namespace moesweep::cli
