#include "experiments/l3_experiment.hpp"

#include <fmt/format.h>

#include <atomic>
#include <fstream>

#include "experiments/run_dir_traces.hpp"
#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/topology.hpp"
#include "sweep/run_session.hpp"
#include "sweep/this_machine.hpp"
#include "util/json_file.hpp"
#include "util/utc_time.hpp"

namespace moesweep {
namespace {

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return fmt::format("{} {} {}", a, b, c);
}

// The machine's usable cache and expert GEMV: `hw --cache`'s, measured once.
CacheProbeResult cache_probe_once(const L3RunEvents& events) {
  if (auto p = load_cached_cache_probe()) return *p;
  if (events.measuring_cache) events.measuring_cache();
  CacheProbeResult r = measure_cache();
  save_cached_cache_probe(r);
  if (!load_cached_bandwidth()) save_cached_bandwidth(measure_bandwidth());
  return r;
}

RunRequest request_for(std::map<std::string, nlohmann::json> settings, const L3RunOptions& o,
                       bool dry_run) {
  RunRequest req;
  req.settings = std::move(settings);
  req.origin = "moesweep l3-run";
  req.out_dir = o.out_dir;
  req.database = {o.db, !o.db.empty(), o.db.empty()};
  req.dry_run = dry_run;
  req.logical_cpus = cpu_info().logical_cpus;
  req.command_line = o.command_line;
  if (!dry_run) req.machine_class = this_machine_class();
  return req;
}

// Every point of a sweep as the run tells it (nothing read back from its files).
class PointsHeard : public RunListener {
 public:
  void point(const Record& record) override { records.push_back(record); }
  std::vector<Record> records;
};

// Opens and runs `session` to its end, routing traced when `trace`; the
// points go to `heard`, the progress to `progress` (may be null).
void measure(RunSession& session, RunListener* progress, PointsHeard& heard, bool trace) {
  if (progress) session.listen(*progress);
  session.listen(heard);
  session.open();
  RunDirRoutingTraces traces(session.dir().path());
  if (trace) session.trace_routing_with(&traces);
  const std::atomic<bool> stop{false};
  session.run(stop);
}

PilotResult run_pilot(const L3Shape& shape, const L3RunOptions& o) {
  L3RunSettings settings = o.run;
  settings.blocks = 1;
  settings.repetitions = 3;
  settings.name = o.run.name + "-pilot";
  auto sweep = l3_sweep_settings(shape, settings, 0);
  const RunSession plan_only(request_for(sweep, o, true));
  PilotResult p = plan_pilot(shape, plan_only.plan());
  if (!p.span_ok || plan_only.plan().models.empty()) return p;
  sweep["experts"] = std::to_string(p.experts);
  if (p.expert_ff > 0) sweep["expert-ff"] = p.expert_ff;
  const std::unique_ptr<RunListener> progress = o.progress ? o.progress() : nullptr;
  PointsHeard heard;
  RunSession session(request_for(sweep, o, false));
  measure(session, progress.get(), heard, false);
  p.run_dir = session.dir().path();
  for (const Record& r : heard.records) take_pilot_figures(r, p);
  return p;
}

std::filesystem::path write_l3_result(const std::filesystem::path& dir, const L3RunReport& r,
                                      const RunLock& /*held: the file is the run's*/) {
  const std::filesystem::path file = dir / "l3_result.json";
  write_file_atomically(file, to_json(r).dump(1) + "\n");
  return file;
}

// The chosen shape's experiment, validated; l3_result.json written under its lock.
void run_chosen(const PilotResult& chosen, const L3RunOptions& o, L3RunOutcome& out) {
  L3RunReport& report = out.report;
  report.dense_ff = o.dense ? dense_ff_matching(chosen.shape, chosen.moe_active_params) : 0;
  const std::unique_ptr<RunListener> progress = o.progress ? o.progress() : nullptr;
  PointsHeard heard;
  RunSession session(
      request_for(l3_sweep_settings(chosen.shape, o.run, report.dense_ff), o, false));
  measure(session, progress.get(), heard, true);
  report.run = session.dir().path();
  report.working_set = analyse_working_set(heard.records);
  try {
    out.validation = validate_l3_run(report.run, true, session.lock());
    report.validation = out.validation->json;
  } catch (const std::exception& e) {
    report.validation_error = e.what();
  }
  report.shape = chosen.shape.text();
  report.finished = utc_now_iso8601();
  report.load_after = load_average();
  out.result_file = write_l3_result(report.run, report, session.lock());
}

}  // namespace

nlohmann::json to_json(const L3RunReport& r) {
  nlohmann::json j = {{"started", r.started}, {"load_before", r.load_before}, {"kernel", r.kernel}};
  for (const PilotResult& p : r.pilots) j["pilots"].push_back(to_json(p));
  if (!r.verdict.empty()) {
    j["verdict"] = r.verdict;
    return j;
  }
  if (r.working_set) j["working_set"] = to_json(*r.working_set);
  if (r.validation_error.empty())
    j["validation"] = r.validation;
  else
    j["validation_error"] = r.validation_error;
  j["shape"] = r.shape;
  j["dense_ff"] = r.dense_ff;
  j["finished"] = r.finished;
  j["load_after"] = r.load_after;
  j["run"] = r.run.string();
  return j;
}

void check_l3_run_options(const L3RunOptions& o) {
  auto settings = l3_sweep_settings(l3_shape_ladder(1).front(), o.run, o.dense ? 256 : 0);
  settings["experts"] = "8";  // auto-l3 would measure the cache first
  const RunSession plan_only(request_for(settings, o, true));
}

L3Sweep run_l3_sweep(std::map<std::string, nlohmann::json> settings, const L3RunOptions& o,
                     const std::filesystem::path& out_dir, bool trace) {
  L3RunOptions here = o;
  here.out_dir = out_dir;
  const std::unique_ptr<RunListener> progress = o.progress ? o.progress() : nullptr;
  PointsHeard heard;
  RunSession session(request_for(std::move(settings), here, false));
  measure(session, progress.get(), heard, trace);
  return {session.dir().path(), std::move(heard.records)};
}

L3RunOutcome run_l3_experiment(const L3RunOptions& o, const L3RunEvents& events) {
  check_l3_run_options(o);
  L3RunOutcome out;
  out.report.started = utc_now_iso8601();
  out.report.load_before = load_average();
  const CacheProbeResult probe = cache_probe_once(events);
  out.report.kernel = kernel_summary_json(probe);
  if (events.cache) events.cache(probe);
  const PilotLadder ladder = climb_l3_ladder(
      l3_shape_ladder(probe_topology().cores),
      [&](const L3Shape& shape) { return run_pilot(shape, o); }, events.pilot);
  out.report.pilots = ladder.pilots;
  if (ladder.chosen) {
    run_chosen(*ladder.chosen, o, out);
    return out;
  }
  out.report.verdict = ladder.verdict(probe.effective_l3_bytes);
  if (!ladder.best.run_dir.empty()) {
    const RunLock lock(ladder.best.run_dir);
    out.result_file = write_l3_result(ladder.best.run_dir, out.report, lock);
  }
  return out;
}

}  // namespace moesweep
