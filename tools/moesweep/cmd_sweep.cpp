// `moesweep sweep`: plan, run, record, print. The flow only; planning lives
// in src/sweep, records in src/results, tables in src/report.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>

#include "commands.hpp"
#include "counters/counter_backend.hpp"
#include "hw/build_info.hpp"
#include "machine_here.hpp"
#include "report/sweep_tables.hpp"
#include "results/file_sinks.hpp"
#include "sweep/run_directory.hpp"
#include "sweep/runner.hpp"
#include "sweep_options.hpp"
#include "sweep_progress.hpp"
#include "sweep_storage.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  g_stop.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills at once
}

// Keeps meta.json current while the run goes: the models as they load, so a
// run killed midway still names (and can resume against) what it measured.
class MetaKeeper : public RunObserver {
 public:
  MetaKeeper(const RunDirectory& dir, nlohmann::json& meta) : dir_(dir), meta_(meta) {}
  void on_model_loaded(const nlohmann::json& facts) override {
    nlohmann::json& models = meta_["models"];
    if (!models.is_array()) models = nlohmann::json::array();
    for (const auto& m : models)
      if (m.value("path", "") == facts.value("path", "")) return;
    models.push_back(facts);
    dir_.write_meta(meta_);
  }

 private:
  const RunDirectory& dir_;
  nlohmann::json& meta_;
};

std::string timestamp_now() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return buf;
}

int print_dry_run(const Plan& plan, const std::string& origin) {
  const nlohmann::json s = plan.summary();
  fmt::print("plan from {}: {} points, {} model load(s), {} context(s), {} thread switch(es)\n",
             origin, s["points"].get<int>(), s["model_loads"].get<int>(), s["contexts"].get<int>(),
             s["thread_switches"].get<int>());
  for (const ModelGroup& mg : plan.models) {
    fmt::print("model {}{}{}\n", model_display_name(mg, plan.spec), knobs_text(mg.knobs),
               mg.choice.file.empty() ? " (twin, built on first use)" : "");
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
      for (const ThreadSettings& t : cg.threads)
        threads.push_back(fmt::format("{}/{}{}", t.n_threads, t.n_threads_batch,
                                      t.cpu_mask.empty() ? "" : "@" + t.cpu_mask));
      fmt::print("    threads (gen/batch): {}\n", fmt::join(threads, " "));
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

// A failure after the run directory exists (a disk that fills, a model the
// engine refuses): every record so far stays, meta.json and the database say
// "interrupted" with the reason, and the resume command is printed.
void stop_on_error(const RunDirectory& dir, nlohmann::json& meta, SinkSet& sinks,
                   const RunMeta& run_meta, const std::string& error) {
  meta["status"] = run_status_name(RunStatus::kInterrupted);
  meta["error"] = error;
  meta["finished_at"] = timestamp_now();
  try {
    dir.write_meta(meta);
  } catch (const std::exception&) {  // the same full disk, say: the message below still stands
  }
  try {
    sinks.end(run_meta, RunStatus::kInterrupted);
  } catch (const std::exception&) {
  }
  fmt::print(stderr,
             "[sweep] stopped by the error below; once it is fixed, continue with: "
             "moesweep sweep --resume {}\n",
             dir.path().string());
}

// tables.md and stdout's tables, the summary line and the exit code.
int finish(const SweepOptions& opts, const RunDirectory& dir, nlohmann::json& meta,
           const RunOutcome& outcome) {
  const std::vector<Record> records = load_records(dir.file("records.jsonl"));
  meta["noise"] = noise_summary(records);  // the points the tables flag for steal
  dir.write_meta(meta);
  const std::string tables = "## sweep-bench\n\n" + sweep_bench_tables(records) +
                             "\n## threads\n\n" +
                             threads_tables(records, {opts.keep_pp, opts.keep_tg, 0});
  std::ofstream(dir.file("tables.md")) << "# " << dir.run_id() << "\n\n" << tables;
  write_sweep_bench_files(dir.path(), records);
  std::fflush(stderr);
  fmt::print("{}", tables);
  std::fflush(stdout);
  fmt::print(stderr, "[sweep] {}: {} ok, {} failed{} -> {}\n", run_status_name(outcome.status),
             outcome.ok_points, outcome.failed_points,
             outcome.skipped_points ? fmt::format(", {} already done", outcome.skipped_points) : "",
             dir.path().string());
  if (outcome.status == RunStatus::kInterrupted) {
    fmt::print(stderr, "[sweep] interrupted; continue with: moesweep sweep --resume {}\n",
               dir.path().string());
    return exit_code::kInterrupted;
  }
  return outcome.status == RunStatus::kPointsFailed ? exit_code::kPointsFailed : exit_code::kOk;
}

// Where a sweep starts from: the flags and profile, or a run to resume
// (locked first, so nothing it reads is being written by another sweep).
struct Start {
  std::string origin;
  std::map<std::string, nlohmann::json> settings;
  std::optional<RunDirectory> resumed;
  std::optional<RunLock> lock;
  nlohmann::json meta = nlohmann::json::object();
  std::set<std::string> done_keys;
};

Start start_from(const SweepOptions& opts, const CLI::App& cmd) {
  Start s;
  if (opts.resume.empty()) {
    s.settings = opts.merged_settings(&s.origin);
    return s;
  }
  s.resumed = RunDirectory::open(opts.resume);
  refuse_flags_on_resume(flags_ignored_on_resume(cmd));
  if (!opts.dry_run) s.lock.emplace(s.resumed->path());
  s.meta = s.resumed->read_meta();
  check_resumable(s.meta);
  for (auto& [k, v] : s.meta.at("settings").items()) s.settings[k] = v;
  s.origin = "resumed run " + s.resumed->run_id();
  s.done_keys = finished_keys(s.resumed->file("records.jsonl"));
  return s;
}

// The measuring itself, once every sink has begun.
RunOutcome measure(Plan& plan, const RunDirectory& dir, nlohmann::json& meta, SinkSet& sinks,
                   counters::CounterBackend& counters, SweepProgress& progress,
                   const std::set<std::string>& done_keys) {
  SampleLog samples(dir.file("samples.jsonl"));
  MetaKeeper meta_keeper(dir, meta);
  ObserverSet observers;
  observers.push(&progress);
  observers.push(&samples);
  observers.push(&meta_keeper);
  SweepRunner runner(plan, sinks, counters, observers, dir.run_id());
  runner.skip_points(done_keys);
  const BandwidthFigure bandwidth =
      machine_bandwidth([&](const std::string& m) { progress.on_note(m); });
  meta["bandwidth"] = {{"gbps", bandwidth.gbps}, {"source", bandwidth.source}};
  RooflineAnnotator roofline(bandwidth);
  runner.annotate_with(&roofline);
  g_stop = false;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  const RunOutcome outcome = runner.run(g_stop);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return outcome;
}

int run_sweep(const SweepOptions& opts, const CLI::App& cmd) {
  Start start = start_from(opts, cmd);
  const bool resumed = start.resumed.has_value();
  nlohmann::json& meta = start.meta;
  SweepSpec spec = spec_from_settings(start.settings, start.origin);
  if (spec.name == "adhoc" && !opts.profile.empty())
    spec.name = std::filesystem::path(opts.profile).stem().string();
  if (!resumed) RunDirectory::check_name(spec.name);
  Plan plan = make_plan(spec, cpu_info().logical_cpus, opts.dry_run);
  const std::optional<std::filesystem::path> database = run_database(
      opts, cmd.count("--db") > 0, cmd.count("--no-db") > 0, resumed ? &meta : nullptr);
  if (opts.dry_run) return print_dry_run(plan, start.origin);

  // Everything a user can get wrong is checked before anything is created,
  // so a refused sweep leaves no run directory and no database row behind.
  check_model_files(plan);
  if (resumed) check_models_unchanged(meta);
  auto counters = counters::make_counter_backend(spec.counters);
  std::unique_ptr<RecordSink> db_sink = database ? open_database_sink(*database) : nullptr;

  RunDirectory dir = resumed ? *start.resumed : RunDirectory::create(opts.out_dir, spec.name);
  if (!start.lock) start.lock.emplace(dir.path());
  if (!resumed) {
    meta = {{"run_id", dir.run_id()},        {"name", spec.name},
            {"started_at", timestamp_now()}, {"command_line", invocation()},
            {"settings", start.settings},    {"spec", spec.to_json()},
            {"plan", plan.summary()},        {"build", build_info_json()}};
    meta["machine_class"] = to_json(this_machine_class());  // compare refuses across classes
  }
  meta["database"] = database ? nlohmann::json(database->string()) : nlohmann::json(nullptr);
  meta["status"] = "running";
  meta["counters"] = counters->describe();
  if (resumed) meta["resumed_at"].push_back(timestamp_now());
  fmt::print(stderr, "[sweep] run directory {}\n", dir.path().string());

  SinkSet sinks;
  RunMeta run_meta{dir.run_id(), spec.name, dir.path().string(), meta};
  SweepProgress progress(opts.quiet);
  RunOutcome outcome;
  try {
    dir.write_meta(meta);
    sinks.push(std::make_unique<JsonlSink>(dir.file("records.jsonl")));
    sinks.push(std::make_unique<CsvSink>(dir.file("records.csv")));
    if (db_sink) sinks.push(std::move(db_sink));
    sinks.begin(run_meta);
    outcome = measure(plan, dir, meta, sinks, *counters, progress, start.done_keys);
    meta["status"] = run_status_name(outcome.status);
    meta["finished_at"] = timestamp_now();
    meta["outcome"] = {{"ok_points", outcome.ok_points},
                       {"failed_points", outcome.failed_points},
                       {"skipped_points", outcome.skipped_points},
                       {"planned_points", plan.points.size()}};
    dir.write_meta(meta);
    sinks.end(run_meta, outcome.status);
  } catch (const std::exception& e) {
    stop_on_error(dir, meta, sinks, run_meta, e.what());
    throw;
  }
  return finish(opts, dir, meta, outcome);
}

}  // namespace

void add_sweep_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<SweepOptions>();
  CLI::App* cmd =
      app.add_subcommand("sweep", "run a sweep: threads x depth x ctx x quant x batch x KV type");
  opts->add_to(*cmd);
  cmd->callback([opts, cmd, &run] { run = [opts, cmd] { return run_sweep(*opts, *cmd); }; });
}

}  // namespace moesweep::cli
