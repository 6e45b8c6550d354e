#include "sweep/runner.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "engine/engine_memory.hpp"
#include "engine/engine_util.hpp"
#include "hw/resctrl.hpp"
#include "model/gguf_inspect.hpp"
#include "model/gguf_sanity.hpp"
#include "model/kv_cache.hpp"
#include "model/twin_builder.hpp"
#include "sweep/kv_walk.hpp"
#include "sweep/memory_plan.hpp"
#include "sweep/memory_watch.hpp"
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

RunOutcome SweepRunner::run(const std::atomic<bool>& stop) {
  RunOutcome out;
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

void SweepRunner::emit(Record&& rec, RunOutcome& out) {
  rec.run_id = run_id_;
  // Which engine build measured it, down to the CPU variant its registry loaded.
  const EngineFacts& engine = engine_facts();
  rec.extra["engine"] = {{"release", engine.release},
                         {"commit", engine.commit},
                         {"build", engine.build},
                         {"cpu_variant", engine.cpu_variant}};
  if (annotator_) annotator_->annotate(rec);
  finished_.insert(rec.point_index);
  (rec.ok ? out.ok_points : out.failed_points)++;
  listener_.point(rec);
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
  const TwinSpec spec = twin_spec_of(mg.choice, mg.knobs, plan_.spec);
  listener_.note(fmt::format("twin {} ({} {})", mg.choice.twin_profile, spec.scale, spec.quant));
  const TwinResult twin =
      ensure_twin(spec, {}, false, [&](const std::string& s) { listener_.note(s); });
  return twin.path.string();
}

std::vector<const PlannedPoint*> SweepRunner::points_of(size_t mi,
                                                        std::optional<size_t> context) const {
  std::vector<const PlannedPoint*> v;
  for (const PlannedPoint& p : plan_.points)
    if (p.model == mi && (!context || p.context == *context)) v.push_back(&p);
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
  rec.extra["engine_failure"] = crash_json(e);
  emit(std::move(rec), out);
}

// A model that the engine cannot load fails its points; a file the user must
// fix stops the sweep with the message.
std::unique_ptr<LoadedModel> SweepRunner::load_model(size_t mi, MemoryShape& shape,
                                                     MemoryWatch& memory, RunOutcome& out) {
  ModelGroup& mg = plan_.models[mi];
  try {
    mg.load.path = resolve_model_path(mg);
    for (PlannedPoint& p : plan_.points)
      if (p.model == mi) p.params.model_path = mg.load.path;
    check_engine_hparams(mg.load.path);  // before the engine could abort on them
    shape = memory_shape_of(inspect_gguf(mg.load.path));
    if (const std::string why = group_memory_problem(mg, shape, available_memory_bytes());
        !why.empty()) {
      fail_points(points_of(mi, std::nullopt), why, out);  // before loading anything
      return nullptr;
    }
    listener_.note(fmt::format("loading {}", mg.load.path));
    memory.before_load();
    auto model = std::make_unique<LoadedModel>(mg.load);
    memory.set_engine_pid(model->pid());
    memory.after_load(mg.load.path, engine_memory_figures(model->load_log()));
    return model;
  } catch (const UserError& e) {
    throw;  // a missing or corrupt file is the user's to fix: stop with the message
  } catch (const EngineCrash& e) {
    fail_points(points_of(mi, std::nullopt), "model load failed: " + crash_text(e), out);
  } catch (const std::exception& e) {
    fail_points(points_of(mi, std::nullopt), fmt::format("model load failed: {}", e.what()), out);
  }
  return nullptr;
}

void SweepRunner::run_model(size_t mi, const std::atomic<bool>& stop, RunOutcome& out) {
  ModelGroup& mg = plan_.models[mi];
  MemoryShape shape;
  MemoryWatch memory(0);  // the engine worker's, once it runs
  std::unique_ptr<LoadedModel> model = load_model(mi, shape, memory, out);
  if (!model) return;
  // Cache / bandwidth allocation for every point of this group; removed on
  // every way out of this function (errors and Ctrl-C unwind through here).
  std::optional<ResctrlGroup> allocation;
  if (mg.l3_ways > 0 || mg.mem_bw_percent > 0) {
    try {
      remove_stale_resctrl_groups(resctrl_root());
      allocation.emplace(probe_resctrl(), mg.l3_ways, mg.mem_bw_percent);
      allocation->adopt_threads(model->pid());
    } catch (const std::exception& e) {
      fail_points(points_of(mi, std::nullopt), e.what(), out);
      return;
    }
  }
  const ModelFacts& f = model->facts();
  if (annotator_) annotator_->set_model(f.path);
  out.models.push_back(facts_json(f));
  listener_.model(out.models.back());
  for (PlannedPoint& p : plan_.points)
    if (p.model == mi) p.params.model_type = f.description;

  for (size_t ci = 0; ci < mg.contexts.size(); ++ci) {
    if (stop.load()) return;
    if (!run_context(mi, ci, *model, shape, memory, stop, out)) {
      // The engine could not be restarted: what is left of this model fails.
      fail_points(points_of(mi, std::nullopt), "the engine worker could not be restarted", out);
      return;
    }
    if (allocation && model->pid() > 0) allocation->adopt_threads(model->pid());
  }
}

// One context of a loaded model: its KV walk over the wanted points. An
// engine error fails the rest of this context; an engine crash fails the
// point in progress, then the worker is restarted, the model reloaded and the
// walk goes on from the next point. False when the worker cannot be restarted.
bool SweepRunner::run_context(size_t mi, size_t ci, LoadedModel& model, const MemoryShape& shape,
                              MemoryWatch& memory, const std::atomic<bool>& stop, RunOutcome& out) {
  const ContextGroup& cg = plan_.models[mi].contexts[ci];
  const std::vector<const PlannedPoint*> points = points_of(mi, ci);
  auto wanted = [&](const PlannedPoint& p) {
    return !done_.count(p.params.key_string()) && !finished_.count(p.index);
  };
  size_t n_wanted = 0;
  for (const PlannedPoint* p : points) n_wanted += wanted(*p);
  out.skipped_points += static_cast<int>(points.size() - n_wanted);
  if (n_wanted == 0) return true;
  if (!cg.invalid_reason.empty()) {
    fail_points(points, cg.invalid_reason, out);
    return true;
  }
  try {
    const Footprint need = context_footprint(shape, cg.params, plan_.spec.load_mode);
    const std::string why = footprint_problem(need, available_memory_bytes(), true);
    if (!why.empty()) throw EngineError(why);
  } catch (const EngineError& e) {
    fail_points(points, e.what(), out);
    return true;
  }
  for (;;) {
    WalkProgress progress;
    try {
      walk_context(mi, ci, model, points, wanted, shape, memory, stop, progress, out);
      return true;
    } catch (const EngineCrash& e) {
      if (!progress.context_made) {  // creating the context kills the engine: every time
        fail_points(points, e.what(), out);
      } else {
        // Between points (a fill through depths nothing wants): the next one pays.
        const PlannedPoint* victim = progress.point;
        for (size_t i = 0; !victim && i < points.size(); ++i)
          if (wanted(*points[i])) victim = points[i];
        if (victim) fail_crashed(*victim, e, out);
      }
      listener_.note(fmt::format("the engine worker ended ({}); restarting it", e.how()));
      try {
        model.restart();
        memory.set_engine_pid(model.pid());
      } catch (const std::exception& restart_error) {
        listener_.note(fmt::format("restarting the engine failed: {}", restart_error.what()));
        return false;
      }
      if (!progress.context_made) return true;
    } catch (const EngineError& e) {
      fail_points(points, e.what(), out);  // the rest of this context; the sweep goes on
      return true;
    }
  }
}

void SweepRunner::walk_context(size_t mi, size_t ci, LoadedModel& model,
                               const std::vector<const PlannedPoint*>& points,
                               const std::function<bool(const PlannedPoint&)>& wanted,
                               const MemoryShape& shape, MemoryWatch& memory,
                               const std::atomic<bool>& stop, WalkProgress& progress,
                               RunOutcome& out) {
  const ModelFacts& f = model.facts();
  const ContextGroup& cg = plan_.models[mi].contexts[ci];
  LiveContext ctx(model, cg.params, traces_ ? traces_->start(f, ci) : nullptr);
  ctx.set_timeout(plan_.spec.point_timeout_s);
  memory.context_created(engine_memory_figures(ctx.creation_log()),
                         context_footprint(shape, cg.params, plan_.spec.load_mode).kv);
  int max_depth = 0;
  for (int d : cg.depths) max_depth = std::max(max_depth, d);
  // [0, deepest + PP) is the prompt stream; the TG tokens come after it.
  const auto tokens =
      random_tokens(plan_.spec.token_seed, f.n_vocab,
                    static_cast<size_t>(max_depth + cg.n_prompt + plan_.spec.n_gen));
  progress.context_made = true;
  WalkInputs in{ctx,       cg,   plan_.spec,      tokens,   counters_,
                listener_, stop, &progress.point, ctx.pid()};
  run_kv_walk(in, points, wanted, [&](const PlannedPoint&, Record&& rec) {
    rec.memory = memory.after_point();
    emit(std::move(rec), out);
  });
  if (traces_) traces_->finish();
}

}  // namespace moesweep
