#include "sweep/runner.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

#include <unistd.h>

#include "engine/engine_log.hpp"
#include "engine/engine_memory.hpp"
#include "hw/resctrl.hpp"
#include "model/gguf_inspect.hpp"
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

void SweepRunner::run_model(size_t mi, const std::atomic<bool>& stop, RunOutcome& out) {
  ModelGroup& mg = plan_.models[mi];
  std::unique_ptr<LoadedModel> model;
  MemoryShape shape;
  MemoryWatch memory(getpid());  // issue 23 hook: the engine's process
  try {
    mg.load.path = resolve_model_path(mg);
    for (PlannedPoint& p : plan_.points)
      if (p.model == mi) p.params.model_path = mg.load.path;
    shape = memory_shape_of(inspect_gguf(mg.load.path));
    if (const std::string why = group_memory_problem(mg, shape, available_memory_bytes());
        !why.empty()) {
      fail_points(points_of(mi, std::nullopt), why, out);  // before loading anything
      return;
    }
    listener_.note(fmt::format("loading {}", mg.load.path));
    memory.before_load();
    EngineLogCapture log(EngineLogCapture::Level::kInfo);  // the engine's buffer sizes
    model = std::make_unique<LoadedModel>(mg.load);
    memory.after_load(mg.load.path, engine_memory_figures(log.text()));
  } catch (const UserError& e) {
    throw;  // a missing or corrupt file is the user's to fix: stop with the message
  } catch (const std::exception& e) {
    fail_points(points_of(mi, std::nullopt), fmt::format("model load failed: {}", e.what()), out);
    return;
  }
  // Cache / bandwidth allocation for every point of this group; removed on
  // every way out of this function (errors and Ctrl-C unwind through here).
  std::optional<ResctrlGroup> allocation;
  if (mg.l3_ways > 0 || mg.mem_bw_percent > 0) {
    try {
      remove_stale_resctrl_groups(resctrl_root());
      allocation.emplace(probe_resctrl(), mg.l3_ways, mg.mem_bw_percent);
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
    run_context(mi, ci, *model, shape, memory, stop, out);
  }
}

// One context of a loaded model: its KV walk over the wanted points; an
// engine error fails the rest of this context and the sweep goes on.
void SweepRunner::run_context(size_t mi, size_t ci, LoadedModel& model, const MemoryShape& shape,
                              MemoryWatch& memory, const std::atomic<bool>& stop, RunOutcome& out) {
  const ModelFacts& f = model.facts();
  const ContextGroup& cg = plan_.models[mi].contexts[ci];
  const std::vector<const PlannedPoint*> points = points_of(mi, ci);
  auto wanted = [&](const PlannedPoint& p) { return !done_.count(p.params.key_string()); };
  size_t n_wanted = 0;
  for (const PlannedPoint* p : points) n_wanted += wanted(*p);
  out.skipped_points += static_cast<int>(points.size() - n_wanted);
  if (n_wanted == 0) return;
  if (!cg.invalid_reason.empty()) {
    fail_points(points, cg.invalid_reason, out);
    return;
  }
  try {
    const Footprint need = context_footprint(shape, cg.params, plan_.spec.load_mode);
    const std::string why = footprint_problem(need, available_memory_bytes(), true);
    if (!why.empty()) throw EngineError(why);
    std::optional<LiveContext> live;
    {
      EngineLogCapture log(EngineLogCapture::Level::kInfo);  // issue 23 hook: buffer sizes
      live.emplace(model, cg.params, traces_ ? traces_->start(f, ci) : nullptr);
      memory.context_created(engine_memory_figures(log.text()), need.kv);
    }
    LiveContext& ctx = *live;
    int max_depth = 0;
    for (int d : cg.depths) max_depth = std::max(max_depth, d);
    // [0, deepest + PP) is the prompt stream; the TG tokens come after it.
    const auto tokens =
        random_tokens(plan_.spec.token_seed, f.n_vocab,
                      static_cast<size_t>(max_depth + cg.n_prompt + plan_.spec.n_gen));
    WalkInputs in{ctx, cg, plan_.spec, tokens, counters_, listener_, stop, getpid()};
    run_kv_walk(in, points, wanted, [&](const PlannedPoint&, Record&& rec) {
      rec.memory = memory.after_point();  // issue 23 hook
      emit(std::move(rec), out);
    });
    if (traces_) traces_->finish();
  } catch (const EngineError& e) {
    fail_points(points, e.what(), out);  // the rest of this context; the sweep goes on
  }
}

}  // namespace moesweep
