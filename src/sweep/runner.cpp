#include "sweep/runner.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>

#include "engine/engine_memory.hpp"
#include "engine/engine_util.hpp"
#include "hw/resctrl.hpp"
#include "model/gguf_inspect.hpp"
#include "model/gguf_sanity.hpp"
#include "model/kv_cache.hpp"
#include "model/twin_builder.hpp"
#include "sweep/exec_block.hpp"
#include "sweep/kv_walk.hpp"
#include "sweep/memory_plan.hpp"
#include "sweep/memory_watch.hpp"
#include "sweep/repetition_rule.hpp"
#include "sweep/sample_length.hpp"
#include "sweep/turn_order.hpp"
#include "sweep/worker_facts_check.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace moesweep {

namespace {

// What meta.json and the listeners get for each loaded model.
nlohmann::json facts_json(const ModelFacts& f) {
  return {{"path", f.path},
          {"description", f.description},
          {"arch", f.arch},
          {"size_bytes", f.size_bytes},
          {"n_params", f.n_params},
          {"n_layer", f.n_layer},
          {"n_vocab", f.n_vocab},
          {"n_ctx_train", f.n_ctx_train},
          {"sha256", model_fingerprint(f.path)}};
}

// A model's facts from its file, for a sweep where no worker of ours loads
// it (every engine an external tool).
ModelFacts model_facts_of_file(const std::string& path) {
  const GgufInspection m = inspect_gguf(path);
  ModelFacts f;
  f.path = path;
  f.arch = m.arch;
  f.file_type = m.file_type;
  f.description = fmt::format("{} {}", m.arch, m.file_type);
  f.size_bytes = m.file_bytes;
  f.n_params = m.params;
  f.n_layer = static_cast<int>(m.n_layer);
  f.n_vocab = static_cast<int>(m.n_vocab);
  f.n_ctx_train = static_cast<int>(m.n_ctx_train);
  return f;
}

}  // namespace

std::vector<int32_t> random_tokens(uint64_t seed, int n_vocab, size_t count) {
  std::vector<int32_t> out(count);
  uint64_t state = seed;
  for (size_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;  // PCG-style LCG step
    out[i] = static_cast<int32_t>((state >> 33) % static_cast<uint64_t>(n_vocab));
  }
  return out;
}

SweepRunner::SweepRunner(Plan& plan, RunListener& listener, counters::CounterBackend& counters,
                         std::string run_id)
    : plan_(plan), listener_(listener), counters_(counters), run_id_(std::move(run_id)) {}

SweepRunner::~SweepRunner() = default;

void SweepRunner::sample_lengths(const SampleLength& lengths) {
  lengths_ = std::make_unique<SampleLength>(lengths);
}

RunOutcome SweepRunner::run(const std::atomic<bool>& stop) {
  RunOutcome out;
  reps_ = std::make_unique<RepetitionRule>(plan_, RepetitionRule::Clock::now());
  stop_ = &stop;
  if (!lengths_) lengths_ = std::make_unique<SampleLength>(0);
  for (size_t mi = 0; mi < plan_.models.size(); ++mi) {
    if (stop.load()) break;
    run_model(mi, stop, out);
  }
  if (stop.load())
    out.status = RunStatus::kInterrupted;
  else if (out.failed_points > 0)
    out.status = RunStatus::kPointsFailed;
  return out;
}

const std::vector<EngineChoice>& SweepRunner::engines() const {
  static const std::vector<EngineChoice> own = {own_engine_choice()};
  return plan_.engines.empty() ? own : plan_.engines;
}

namespace {

// Every speed of a record is a finite positive number (records.jsonl's reader
// refuses anything else, and so would report and compare): one that is not
// fails its point with the reason instead of reaching the file.
void refuse_impossible_speeds(Record& rec) {
  if (!rec.ok) return;
  for (auto [name, phase] : {std::pair{"PP", &rec.pp}, std::pair{"TG", &rec.tg}})
    for (double v : phase->tokens_per_s)
      if (!std::isfinite(v) || v <= 0) {
        rec.ok = false;
        rec.error =
            fmt::format("the engine's {} time gave a speed of {} t/s: not a measurement", name, v);
        rec.pp = {};
        rec.tg = {};
        return;
      }
}

}  // namespace

UserError SweepRunner::named(const UserError& e, size_t engine) const {
  if (engines()[engine].name.empty()) return e;
  return UserError(fmt::format("engine '{}': {}", engines()[engine].name, e.problem()),
                   e.expected(), e.fix(), e.exit_code());
}

void SweepRunner::emit(Record&& rec, RunOutcome& out) {
  rec.run_id = run_id_;
  refuse_impossible_speeds(rec);
  // Which engine build measured it, down to the CPU variant its registry loaded.
  const EngineChoice* choice = &engines().front();
  for (const EngineChoice& e : engines())
    if (e.name == rec.params.engine) choice = &e;
  EngineStamp& stamp = rec.extra.engine.emplace();
  if (choice->is_exec()) {  // another program: what `engine add` read from it, nothing more
    stamp.kind = choice->kind, stamp.tool = choice->exec_tool;
    stamp.release = choice->release, stamp.commit = choice->commit;
  } else {
    const EngineFacts& engine = engine_facts(choice->worker);
    stamp.kind = engine.kind.empty() ? "llama.cpp" : engine.kind;
    stamp.release = engine.release, stamp.commit = engine.commit;
    stamp.build = engine.build, stamp.cpu_variant = engine.cpu_variant;
  }
  if (!choice->name.empty()) stamp.name = choice->name, stamp.build_flags = choice->build_flags;
  if (annotator_) annotator_->annotate(rec);
  finished_.insert(rec.point_index);
  (rec.ok ? out.ok_points : out.failed_points)++;
  listener_.point(rec);
}

bool SweepRunner::wanted(const PlannedPoint& p) const {
  return !done_.count(p.params.key_string()) && !finished_.count(p.index);
}

void SweepRunner::fail_points(const std::vector<const PlannedPoint*>& points,
                              const std::string& reason, RunOutcome& out) {
  for (const PlannedPoint* p : points) {
    if (done_.count(p->params.key_string()) || finished_.count(p->index)) continue;
    Record rec;
    rec.point_index = p->index;
    rec.params = p->params;
    rec.ok = false;
    rec.error = reason;
    emit(std::move(rec), out);
  }
}

std::string SweepRunner::resolve_model_path(ModelGroup& mg) {
  if (!mg.choice.file.empty()) return mg.choice.file;
  const TwinSpec spec = twin_spec_of(mg, plan_.spec);
  listener_.note(fmt::format("twin {} ({} {})", mg.choice.twin_profile, spec.scale, spec.quant));
  const TwinResult twin =
      ensure_twin(spec, {}, false, [&](const std::string& s) { listener_.note(s); });
  return twin.path.string();
}

std::vector<const PlannedPoint*> SweepRunner::points_of(size_t mi, std::optional<size_t> context,
                                                        std::optional<size_t> engine) const {
  std::vector<const PlannedPoint*> v;
  for (const PlannedPoint& p : plan_.points)
    if (p.model == mi && (!context || p.context == *context) && (!engine || p.engine == *engine))
      v.push_back(&p);
  return v;
}

namespace {

// The engine's failure as a record says it: how the worker ended and the last
// lines of its log (an assert's file and line), so a crash is diagnosable from
// the results alone.
nlohmann::json crash_json(const EngineCrash& e) {
  return {{"how", e.how()}, {"error", e.what()}, {"log_tail", e.log_tail()}};
}

// The crash in one line: how it ended, and the last thing the engine said.
std::string crash_text(const EngineCrash& e) {
  for (auto it = e.log_tail().rbegin(); it != e.log_tail().rend(); ++it)
    if (it->find_first_not_of(" \t") != std::string::npos)
      return fmt::format("{} (engine log: {})", e.what(), *it);
  return e.what();
}

}  // namespace

void SweepRunner::fail_crashed(const PlannedPoint& p, const EngineCrash& e, RunOutcome& out) {
  Record rec;
  rec.point_index = p.index;
  rec.params = p.params;
  rec.ok = false;
  rec.error = crash_text(e);
  rec.extra.engine_failure = crash_json(e);
  emit(std::move(rec), out);
}

// One engine's worker holding the model group's model, and its memory readings.
struct SweepRunner::EngineModel {
  std::unique_ptr<LoadedModel> model;  // null: it failed to load or to restart (points failed)
  std::unique_ptr<MemoryWatch> memory;
};

// One engine's walk over one context: its live context and the KV walk on it,
// both made again after the engine's worker crashed and was restarted.
struct SweepRunner::Lane {
  size_t model_index = 0, context_index = 0, engine = 0;
  EngineModel* em = nullptr;
  std::vector<const PlannedPoint*> points;  // this engine's points of the context
  std::unique_ptr<LiveContext> ctx;
  std::unique_ptr<KvWalk> walk;
  const PlannedPoint* in_progress = nullptr;  // measured, or its depth being filled
  bool context_made = false;                  // in the current attempt
  bool done = false;
  size_t exec_thread = 0;  // an exec engine's next thread setting (one run of its tool each)
};

namespace {

// " on engine 'pr'" in notes when there is more than one engine.
std::string on_engine(const std::vector<EngineChoice>& engines, size_t e) {
  return engines.size() > 1 ? fmt::format(" on engine '{}'", engines[e].name) : "";
}

}  // namespace

// The engine cannot load the model: that engine's points fail. A file the user
// must fix stops the sweep with the message.
std::unique_ptr<LoadedModel> SweepRunner::load_model(size_t mi, size_t e,
                                                     const GgufInspection& file,
                                                     MemoryWatch& memory, RunOutcome& out) {
  ModelGroup& mg = plan_.models[mi];
  try {
    listener_.note(fmt::format("loading {}{}", mg.load.path, on_engine(engines(), e)));
    memory.before_load();
    ModelLoadParams load = mg.load;
    load.knobs = engines()[e].knobs;  // ik_llama.cpp's switches, for such an engine only
    auto model = std::make_unique<LoadedModel>(load, engines()[e].worker,
                                               WorkerLimits{plan_.spec.point_timeout_s, stop_});
    if (const std::string why = worker_facts_problem(model->facts(), file); !why.empty())
      throw EngineError(why);
    memory.set_engine_pid(model->pid());
    memory.after_load(mg.load.path, engine_memory_figures(model->load_log()));
    return model;
  } catch (const WorkerInterrupted&) {
    return nullptr;  // Ctrl-C: its points stay unmeasured, for --resume
  } catch (const UserError& u) {
    throw named(u, e);  // a missing or corrupt file is the user's to fix: stop with the message
  } catch (const EngineCrash& c) {
    fail_points(points_of(mi, std::nullopt, e), "model load failed: " + crash_text(c), out);
  } catch (const std::exception& x) {
    fail_points(points_of(mi, std::nullopt, e), fmt::format("model load failed: {}", x.what()),
                out);
  }
  return nullptr;
}

// The model's file, its checks and one worker per engine holding it. False
// when no engine holds it (every point failed with the reason).
bool SweepRunner::load_models(size_t mi, std::vector<EngineModel>& models, MemoryShape& shape,
                              RunOutcome& out) {
  ModelGroup& mg = plan_.models[mi];
  const size_t n = engines().size();
  GgufInspection file;
  try {
    mg.load.path = resolve_model_path(mg);
    for (PlannedPoint& p : plan_.points)
      if (p.model == mi) p.params.model_path = mg.load.path;
    check_engine_hparams(mg.load.path);  // before the engine could abort on them
    file = inspect_gguf(mg.load.path);
    shape = memory_shape_of(file);
    if (const std::string why = group_memory_problem(mg, shape, available_memory_bytes(), n);
        !why.empty()) {
      fail_points(points_of(mi, std::nullopt),
                  n > 1 ? fmt::format("{} engines at once: {}", n, why) : why, out);
      return false;  // before loading anything
    }
  } catch (const TwinBuildInterrupted&) {
    return false;  // Ctrl-C while its twin was built: the run ends interrupted
  } catch (const WorkerInterrupted&) {
    return false;  // Ctrl-C while a twin was quantized
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& e) {
    fail_points(points_of(mi, std::nullopt), fmt::format("model load failed: {}", e.what()), out);
    return false;
  }
  models.resize(n);
  bool any = false;
  for (size_t e = 0; e < n; ++e) {
    models[e].memory = std::make_unique<MemoryWatch>(0);  // the engine worker's, once it runs
    if (engines()[e].is_exec()) {  // another program loads it once per run of the tool
      any = true;
      continue;
    }
    if (std::count(mg.skip_engines.begin(), mg.skip_engines.end(), e)) continue;  // no points
    models[e].model = load_model(mi, e, file, *models[e].memory, out);
    any = any || models[e].model;
  }
  return any;
}

void SweepRunner::run_model(size_t mi, const std::atomic<bool>& stop, RunOutcome& out) {
  ModelGroup& mg = plan_.models[mi];
  MemoryShape shape;
  std::vector<EngineModel> models;
  if (!load_models(mi, models, shape, out)) return;
  // Cache / bandwidth allocation for every point of this group; removed on
  // every way out of this function (errors and Ctrl-C unwind through here).
  std::optional<ResctrlGroup> allocation;
  auto adopt = [&] {
    for (EngineModel& em : models)
      if (allocation && em.model && em.model->pid() > 0) allocation->adopt_threads(em.model->pid());
  };
  if (mg.l3_ways > 0 || mg.mem_bw_percent > 0) {
    try {
      remove_stale_resctrl_groups(resctrl_root());
      allocation.emplace(probe_resctrl(), mg.l3_ways, mg.mem_bw_percent);
      adopt();
    } catch (const std::exception& e) {
      fail_points(points_of(mi, std::nullopt), e.what(), out);
      return;
    }
  }
  const LoadedModel* first = nullptr;
  for (const EngineModel& em : models)
    if (!first && em.model) first = em.model.get();
  const ModelFacts f = first ? first->facts() : model_facts_of_file(mg.load.path);
  if (annotator_) annotator_->set_model(f.path);
  out.models.push_back(facts_json(f));
  listener_.model(out.models.back());
  for (PlannedPoint& p : plan_.points)
    if (p.model == mi) p.params.model_type = f.description;

  for (size_t ci = 0; ci < mg.contexts.size(); ++ci) {
    if (stop.load()) return;
    run_context(mi, ci, models, shape, stop, out);
    adopt();
  }
}

// One context of a loaded model, walked by every engine. The engines take
// turns repetition by repetition (sweep/turn_order.hpp: ABBA for two, a random
// order each round for more), so drift over the run falls on every engine
// alike. An engine error fails the rest of that engine's context; an engine
// crash fails the point in progress, then its worker is restarted, the model
// reloaded and its walk goes on.
void SweepRunner::run_context(size_t mi, size_t ci, std::vector<EngineModel>& models,
                              const MemoryShape& shape, const std::atomic<bool>& stop,
                              RunOutcome& out) {
  const ContextGroup& cg = plan_.models[mi].contexts[ci];
  const std::vector<const PlannedPoint*> points = points_of(mi, ci);
  size_t n_wanted = 0;
  for (const PlannedPoint* p : points) n_wanted += wanted(*p);
  out.skipped_points += static_cast<int>(points.size() - n_wanted);
  if (n_wanted == 0) return;
  if (!cg.invalid_reason.empty()) return fail_points(points, cg.invalid_reason, out);
  const Footprint need = context_footprint(shape, cg.params, plan_.spec.load_mode, models.size());
  if (const std::string why = footprint_problem(need, available_memory_bytes(), true); !why.empty())
    return fail_points(points, why, out);
  std::vector<Lane> lanes(models.size());
  const LoadedModel* first = nullptr;
  for (size_t e = 0; e < lanes.size(); ++e) {
    lanes[e].model_index = mi;
    lanes[e].context_index = ci;
    lanes[e].engine = e;
    lanes[e].em = &models[e];
    lanes[e].points = points_of(mi, ci, e);
    if (engines()[e].is_exec()) continue;  // no worker: one run of the tool per step
    if (!models[e].model) {
      fail_points(lanes[e].points, "the engine worker could not be restarted", out);
      lanes[e].done = true;
    } else if (!first) {
      first = models[e].model.get();
    }
  }
  int max_depth = 0;
  for (int d : cg.depths) max_depth = std::max(max_depth, d);
  // [0, deepest + PP) is the prompt stream; the TG tokens come after it.
  const auto tokens =
      first ? random_tokens(plan_.spec.token_seed, first->facts().n_vocab,
                            static_cast<size_t>(max_depth + cg.n_prompt + plan_.spec.n_gen))
            : std::vector<int32_t>{};
  for (size_t round = 0;; ++round) {
    bool stepped = false;
    for (size_t k : turn_order(lanes.size(), round, plan_.spec.block_seed)) {
      Lane& lane = lanes[k];
      if (lane.done) continue;
      if (stop.load()) return;
      step_lane(lane, shape, tokens, stop, out);
      stepped = true;
    }
    if (!stepped) return;
  }
}

void SweepRunner::open_lane(Lane& lane, const MemoryShape& shape,
                            const std::vector<int32_t>& tokens, const std::atomic<bool>& stop) {
  const ContextGroup& cg = plan_.models[lane.model_index].contexts[lane.context_index];
  LoadedModel& model = *lane.em->model;
  RoutingObserver* routing = traces_ && lane.engine == 0
                                 ? traces_->start(model.facts(), lane.context_index)
                                 : nullptr;  // --trace-routing: the first engine's
  ContextParams params = cg.params;
  params.knobs = engines()[lane.engine].knobs;  // ik_llama.cpp's switches, for such an engine only
  if (!model.running()) {  // a request between lanes (freeing a context) ended it
    listener_.note(fmt::format("the engine worker{} had ended; restarting it",
                               on_engine(engines(), lane.engine)));
    model.restart();
    lane.em->memory->set_engine_pid(model.pid());
  }
  lane.ctx = std::make_unique<LiveContext>(model, params, routing);
  // The KV cache expected of the context the engine made: its padding of
  // n_ctx (-c 80 holds 256 cells) is no discrepancy of the engine's figures.
  ContextParams held = cg.params;
  if (lane.ctx->n_ctx() > 0) held.n_ctx = lane.ctx->n_ctx();
  lane.em->memory->context_created(engine_memory_figures(lane.ctx->creation_log()),
                                   context_footprint(shape, held, plan_.spec.load_mode).kv);
  for (const std::string& n : check_applied(params, {}, lane.ctx->applied(), {}).notes)
    listener_.note(fmt::format("the engine{} applied {}", on_engine(engines(), lane.engine), n));
  lane.context_made = true;
  const WalkInputs in{*lane.ctx,       cg,          plan_.spec,     tokens,
                      counters_,       listener_,   stop,           &lane.in_progress,
                      lane.ctx->pid(), reps_.get(), lengths_.get(), routing ? traces_ : nullptr};
  lane.walk = std::make_unique<KvWalk>(in, lane.points,
                                       [this](const PlannedPoint& p) { return wanted(p); });
}

void SweepRunner::step_lane(Lane& lane, const MemoryShape& shape,
                            const std::vector<int32_t>& tokens, const std::atomic<bool>& stop,
                            RunOutcome& out) {
  if (engines()[lane.engine].is_exec()) return step_exec_lane(lane, stop, out);
  try {
    if (!lane.walk) open_lane(lane, shape, tokens, stop);
    // Taking turns: the counters follow the engine whose turn it is.
    if (engines().size() > 1) counters_.threads_changed(lane.ctx->pid());
    const bool more = lane.walk->step([&](const PlannedPoint&, Record&& rec) {
      rec.memory = lane.em->memory->after_point();
      emit(std::move(rec), out);
    });
    if (more || lane.walk->stopped()) return;
    lane.done = true;
    lane.walk.reset();
    lane.ctx.reset();  // frees this engine's KV cache while the others go on
    if (traces_ && lane.engine == 0) traces_->finish();
  } catch (const WorkerInterrupted&) {
    lane.done = true;  // Ctrl-C: the point in progress stays unmeasured, for --resume
    lane.walk.reset();
    lane.ctx.reset();
  } catch (const WorkerRefusal& e) {
    lane_refused(lane, e, out);  // one point's request, not the run's
  } catch (const UserError& e) {
    throw named(e, lane.engine);  // the user's to fix, whichever engine said it
  } catch (const EngineCrash& e) {
    lane_crashed(lane, e, out);
  } catch (const EngineError& e) {
    fail_points(lane.points, e.what(), out);  // the rest of this engine's context
    lane.done = true;
    lane.walk.reset();
    lane.ctx.reset();
  }
}

// The point a failure in the middle of a lane's walk fails: the one in
// progress; between points (a fill through depths nothing wants), the next.
const PlannedPoint* SweepRunner::point_failing_now(const Lane& lane) const {
  const PlannedPoint* victim = lane.in_progress;
  for (size_t i = 0; !victim && i < lane.points.size(); ++i)
    if (wanted(*lane.points[i])) victim = lane.points[i];
  return victim;
}

// The worker refused one of the lane's requests as bad input and goes on
// running: the point it was for fails with the worker's words (every point of
// the lane when it refused the context itself), and the lane goes on with a
// new context.
void SweepRunner::lane_refused(Lane& lane, const WorkerRefusal& e, RunOutcome& out) {
  const std::string why = named(e, lane.engine).problem();
  if (!lane.context_made) {
    fail_points(lane.points, why, out);
    lane.done = true;
  } else if (const PlannedPoint* victim = point_failing_now(lane)) {
    fail_points({victim}, why, out);
  }
  lane.walk.reset();
  lane.ctx.reset();
  lane.in_progress = nullptr;
  lane.context_made = false;
}

void SweepRunner::lane_crashed(Lane& lane, const EngineCrash& e, RunOutcome& out) {
  const bool context_made = lane.context_made;
  if (!context_made) {  // creating the context kills the engine: every time
    fail_points(lane.points, e.what(), out);
    lane.done = true;
  } else if (const PlannedPoint* victim = point_failing_now(lane)) {
    fail_crashed(*victim, e, out);
  }
  lane.walk.reset();
  lane.ctx.reset();
  lane.in_progress = nullptr;
  lane.context_made = false;
  listener_.note(fmt::format("the engine worker{} ended ({}); restarting it",
                             on_engine(engines(), lane.engine), e.how()));
  try {
    lane.em->model->restart();
    lane.em->memory->set_engine_pid(lane.em->model->pid());
  } catch (const WorkerInterrupted&) {
    lane.done = true;  // Ctrl-C while it loaded again
  } catch (const std::exception& restart_error) {
    listener_.note(fmt::format("restarting the engine failed: {}", restart_error.what()));
    fail_points(lane.points, "the engine worker could not be restarted", out);
    lane.em->model.reset();  // the model's later contexts fail this engine's points
    lane.done = true;
  }
}

}  // namespace moesweep

namespace moesweep {

// An exec engine's turn: one run of its tool, for the wanted points of the
// lane's next thread setting (sweep/exec_block.hpp). Its samples reach the
// listener like the worker's, after the run.
void SweepRunner::step_exec_lane(Lane& lane, const std::atomic<bool>& stop, RunOutcome& out) {
  const ModelGroup& mg = plan_.models[lane.model_index];
  const ContextGroup& cg = mg.contexts[lane.context_index];
  for (; lane.exec_thread < cg.threads.size(); ++lane.exec_thread) {
    ExecBlock block{engines()[lane.engine], cg, plan_.spec, mg.load.path, lane.exec_thread, {}};
    for (const PlannedPoint* p : lane.points)
      if (p->thread == lane.exec_thread && wanted(*p)) block.points.push_back(p);
    if (block.points.empty()) continue;
    listener_.note(fmt::format("running {} ({} points){}", engines()[lane.engine].exec_tool,
                               block.points.size(), on_engine(engines(), lane.engine)));
    // The counters attach to moesweep's engine worker: another program's
    // benchmark is not counted, and its records say so.
    const nlohmann::json uncounted = counters::not_counted(
        counters_, fmt::format("engine '{}' is another program's benchmark ({}): --counters {} "
                               "counts moesweep's own engine worker only",
                               engines()[lane.engine].name, engines()[lane.engine].exec_tool,
                               counters_.name()));
    for (Record& rec : run_exec_block(block, stop)) {
      if (rec.ok) rec.pp.counters = rec.tg.counters = uncounted;
      for (auto [phase, result] : {std::pair{"pp", &rec.pp}, std::pair{"tg", &rec.tg}})
        for (size_t i = 0; i < result->seconds.size(); ++i)
          listener_.sample({rec.point_index, &rec.params, phase, static_cast<int>(i),
                            result->seconds[i], phase[0] == 'p' ? rec.params.pp : rec.params.tg});
      emit(std::move(rec), out);
    }
    ++lane.exec_thread;
    return;
  }
  lane.done = true;
}

}  // namespace moesweep
