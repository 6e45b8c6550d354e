#include "sweep/run_session.hpp"

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "hw/build_info.hpp"
#include "results/compare.hpp"
#include "results/sqlite_store.hpp"
#include "sweep/repetition_rule.hpp"
#include "sweep/roofline_annotator.hpp"
#include "sweep/sample_cost.hpp"
#include "util/error.hpp"

namespace moesweep {

int exit_code_for(RunStatus status) {
  switch (status) {
    case RunStatus::kInterrupted:
      return exit_code::kInterrupted;
    case RunStatus::kPointsFailed:
      return exit_code::kPointsFailed;
    default:
      return exit_code::kOk;
  }
}

RunSession::RunSession(RunRequest request) : request_(std::move(request)) {
  if (request_.resume.empty()) {
    settings_ = request_.settings;
    origin_ = request_.origin;
  } else {
    resumed_ = RunDirectory::open(request_.resume);
    refuse_flags_on_resume(request_.ignored_on_resume);
    if (!request_.dry_run) lock_.emplace(resumed_->path());
    meta_ = resumed_->read_meta();
    check_resumable(meta_);
    settings_ = meta_.settings;
    origin_ = "resumed run " + resumed_->run_id();
    earlier_ = load_records(resumed_->file("records.jsonl"));
    for (const Record& r : earlier_)
      if (r.ok) done_keys_.insert(r.params.key_string());
  }
  SweepSpec spec = spec_from_settings(settings_, origin_);
  if (spec.name == "adhoc" && !request_.profile_stem.empty()) spec.name = request_.profile_stem;
  if (!resumed_) RunDirectory::check_name(spec.name);
  plan_ = make_plan(spec, request_.logical_cpus, request_.dry_run);
  // The engine worker must start and say what it is before anything is
  // written (a missing worker or a broken engine package: exit 2, no run dir).
  if (!request_.dry_run) engine_facts();
  if (request_.adjust_plan)
    request_.adjust_plan(plan_, resumed_ ? std::optional<RunMeta>(meta_) : std::nullopt);
  static const nlohmann::json none;
  sample_time_ = run_sample_time(
      plan_, resumed_ ? (meta_.sweep ? &meta_.sweep->sample_length : &none) : nullptr);
  database_ = run_database(request_.database, resumed_ ? &meta_ : nullptr);
}

// The lifecycle's destructor ends a run left open "failed".
RunSession::~RunSession() = default;

// What a sweep adds to meta.json; the run id and directory, "running" and
// the start time are begin()'s (run_lifecycle.hpp).
void RunSession::start_meta(const counters::CounterBackend& counters) {
  if (!resumed_) {
    meta_ = RunMeta{};
    meta_.kind = RunKind::kSweep;
    meta_.name = plan_.spec.name;
    meta_.command_line = request_.command_line;
    meta_.settings = settings_;
    meta_.sweep.emplace().spec = plan_.spec.to_json();
    meta_.plan = plan_.summary();
    meta_.build = build_facts_from_json(build_info_json(engine_facts()), "this build's facts");
    meta_.machine_class = request_.machine_class;  // compare refuses across classes
    meta_.node = request_.node;
    meta_.shard = request_.shard;
  }
  SweepFacts& facts = meta_.sweep ? *meta_.sweep : meta_.sweep.emplace();
  if (facts.sample_length.is_null()) facts.sample_length = sample_time_.to_json();
  if (sample_time_.profile && facts.noise_profile.is_null())
    facts.noise_profile = to_json(*sample_time_.profile);
  meta_.has_database = true;
  meta_.database = database_ ? std::optional<std::string>(database_->string()) : std::nullopt;
  facts.counters = counters.describe();
  if (resumed_) meta_.resumed_at.push_back(run_timestamp_now());
  meta_.error.clear();  // a resumed failed run: that error is behind it
}

const std::string& RunSession::tables_text(TableWidth width) const {
  static const std::string none;
  if (!tables_) return none;
  return width == TableWidth::kWide ? tables_->markdown() : tables_->terminal();
}

void RunSession::open() {
  // Everything a user can get wrong is checked before anything is created,
  // so a refused sweep leaves no run directory and no database row behind.
  check_model_files(plan_);
  if (resumed_) check_models_unchanged(meta_);
  counters::CounterOptions counter_options = counters::counter_options_from_environment();
  counter_options.sim_cache = plan_.spec.sim_cache;
  counter_options.sim_per_token = plan_.spec.sim_per_token;
  counter_options.sim_keep_dumps = plan_.spec.sim_keep_dumps;
  counters_ = counters::make_counter_backend(plan_.spec.counters, counter_options);
  if (std::vector<std::string> prefix = counters_->worker_launcher(); !prefix.empty())
    launcher_.emplace(std::move(prefix));  // before meta.json: its engine facts are valgrind's
  std::unique_ptr<RunListener> db = database_ ? std::make_unique<SqliteSink>(*database_) : nullptr;
  RunDirectory dir = resumed_ ? *resumed_ : RunDirectory::create(request_.out_dir, plan_.spec.name);
  if (plan_.spec.sim_keep_dumps) counters_->keep_raw_output_in(dir.path());
  life_ = std::make_unique<RunLifecycle>(dir, std::move(lock_));
  if (resumed_) notes_ = repair_run_files(dir.path());  // never glued onto a torn line
  if (!sample_time_.profile_problem.empty())
    notes_.push_back(
        fmt::format("this machine's noise profile was ignored: {} (`moesweep hw "
                    "--noise` measures it again)",
                    sample_time_.profile_problem));
  start_meta(*counters_);
  life_->meta() = meta_;
  tables_ = std::make_unique<RunTablesWriter>(dir.path(), dir.run_id(), request_.sweet_spot);
  life_->guarded([&] {  // a file that cannot be opened: meta.json says "failed"
    for (auto& writer : point_file_writers(dir, true)) life_->listen(std::move(writer));
    if (db) life_->listen(std::move(db));
    life_->listen(*tables_);
    for (RunListener* l : added_listeners_) life_->listen(*l);
  });
  life_->begin();
  if (resumed_) life_->guarded([&] { life_->listeners().resumed(earlier_); });
  std::vector<Record>().swap(earlier_);  // the listeners keep what they need
  // What to do about counters this machine withholds (a sysctl, a
  // capability): said once per run to whoever listens, not once per point.
  const nlohmann::json& counters = life_->meta().sweep->counters;
  const nlohmann::json advice =
      counters.is_object() ? counters.value("advice", nlohmann::json()) : nlohmann::json();
  if (advice.is_array())
    for (const nlohmann::json& line : advice)
      if (line.is_string()) life_->listeners().note("counters: " + line.get<std::string>());
  // What the plan chose or left out (engines that cannot load a twin, the
  // twin's layout, auto-l3's shapes): said before the first point.
  for (const std::string& w : plan_.warnings) life_->listeners().note("warning: " + w);
}

RunOutcome RunSession::run(const std::atomic<bool>& stop) {
  RunOutcome outcome;
  RunMeta& meta = life_->meta();
  life_->guarded([&] {
    RunListener& listeners = life_->listeners();
    SweepRunner runner(plan_, listeners, *counters_, life_->dir().run_id());
    runner.skip_points(done_keys_);
    const BandwidthFigure bandwidth =
        machine_bandwidth([&](const std::string& m) { listeners.note(m); });
    meta.bandwidth = bandwidth_facts_from_json(to_json(bandwidth), "the bandwidth probe");
    RooflineAnnotator roofline(bandwidth);
    runner.annotate_with(&roofline);
    runner.trace_routing_with(traces_);
    SampleLength lengths(sample_time_.choice.seconds);
    if (resumed_) lengths.keep_decisions_of(load_records(life_->dir().file("records.jsonl")));
    runner.sample_lengths(lengths);
    outcome = runner.run(stop);
    meta.outcome = OutcomeFacts{.ok_points = outcome.ok_points,
                                .failed_points = outcome.failed_points,
                                .skipped_points = outcome.skipped_points,
                                .planned_points = static_cast<int64_t>(plan_.points.size())};
    meta.sweep->noise = tables_->noise();  // the points the tables flag for steal
    if (const std::string cost = fixed_length_cost(tables_->records()); !cost.empty())
      tables_->add_paragraph(cost);
    life_->end(outcome.status);
  });
  return outcome;
}

// A run that kept one call of -n per sample, shorter than this machine's
// noise profile recommends: what that costs in detectable change
// (sweep/sample_cost.hpp), in meta.json and under the tables; "" otherwise.
std::string RunSession::fixed_length_cost(const std::vector<Record>& records) {
  const std::optional<double> sample_s = median_tg_sample_seconds(records);
  if (sample_time_.choice.seconds > 0 || !sample_time_.profile || !sample_s) return "";
  const std::optional<SampleLengthCost> cost =
      sample_length_cost(*sample_time_.profile, *sample_s, plan_.spec.repetitions,
                         plan_.engines.size() > 1, compared_cell_alpha(plan_));
  if (!cost) return "";
  life_->meta().sweep->sample_length["fixed_length_cost"] = to_json(*cost);
  return "Sample length: " + sample_length_cost_text(*cost, plan_.spec.n_gen) + ".";
}

}  // namespace moesweep
