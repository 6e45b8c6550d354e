#include "sweep/plan_cost.hpp"

#include <algorithm>

#include "results/run_source.hpp"
#include "sweep/sample_length.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// Nominal tokens/s per thread for a model that never ran: prefill is batched
// (an order of magnitude faster per token than decode). Only ratios matter.
constexpr double kNominalPpPerThread = 10.0;
constexpr double kNominalTgPerThread = 1.0;

struct Speeds {
  double pp, tg;
};

Speeds point_speeds(const PointParams& p, const SpeedTable& table, bool* measured) {
  if (const auto s = table.speeds(p)) return {s->first, s->second};
  *measured = false;
  return {kNominalPpPerThread * std::max(1, p.n_threads_batch),
          kNominalTgPerThread * std::max(1, p.n_threads)};
}

// One sample of calls of `call_s` lasting at least `min_s` (0: one call).
double sample_seconds(double call_s, double min_s) {
  if (!(call_s > 0) || !(min_s > 0)) return call_s;
  return call_s * calls_for_time(min_s, call_s);
}

}  // namespace

void SpeedTable::add(const Record& r) {
  if (!r.ok || r.pp.speed.mean <= 0 || r.tg.speed.mean <= 0) return;
  // A point measured under valgrind (--counters sim) ran about 100x slower than native.
  if (r.tg.counters.contains("simulated") || r.pp.counters.contains("simulated")) return;
  for (Sum* s :
       {&by_model_[r.params.model_name], &by_threads_[{r.params.model_name, r.params.n_threads}]}) {
    s->pp += r.pp.speed.mean;
    s->tg += r.tg.speed.mean;
    ++s->n;
    if (r.pp.speed.n >= 2 && r.tg.speed.n >= 2) {
      s->cv_pp += r.pp.speed.cv;
      s->cv_tg += r.tg.speed.cv;
      ++s->n_cv;
    }
  }
}

SpeedTable SpeedTable::from_runs(const std::filesystem::path& runs_dir) {
  SpeedTable table;
  std::error_code ec;
  if (!std::filesystem::is_directory(runs_dir, ec)) return table;
  for (const auto& e : std::filesystem::directory_iterator(runs_dir, ec)) {
    const auto file = e.path() / "records.jsonl";
    if (!std::filesystem::exists(file)) continue;
    try {
      for (const Record& r : read_records_jsonl(file)) table.add(r);
    } catch (const UserError&) {
      continue;  // an unreadable old run does not stop an estimate
    }
  }
  return table;
}

const SpeedTable::Sum* SpeedTable::find(const PointParams& p) const {
  if (auto it = by_threads_.find({p.model_name, p.n_threads}); it != by_threads_.end())
    return &it->second;
  if (auto m = by_model_.find(p.model_name); m != by_model_.end()) return &m->second;
  return nullptr;
}

std::optional<std::pair<double, double>> SpeedTable::speeds(const PointParams& p) const {
  const Sum* s = find(p);
  if (!s || s->n == 0) return std::nullopt;
  return std::make_pair(s->pp / s->n, s->tg / s->n);
}

std::optional<std::pair<double, double>> SpeedTable::spreads(const PointParams& p) const {
  const Sum* s = find(p);
  if (!s || s->n_cv == 0) return std::nullopt;
  return std::make_pair(s->cv_pp / s->n_cv, s->cv_tg / s->n_cv);
}

PlanCost estimate_cost(const Plan& plan, const SpeedTable& speeds) {
  PlanCost out;
  out.in_seconds = true;
  std::map<std::pair<size_t, size_t>, size_t> slot;  // (model, context) -> index in out.contexts
  for (size_t mi = 0; mi < plan.models.size(); ++mi)
    for (size_t ci = 0; ci < plan.models[mi].contexts.size(); ++ci) {
      slot[{mi, ci}] = out.contexts.size();
      out.contexts.push_back({mi, ci, 0, 0});
    }
  const int reps = std::max(1, plan.spec.repetitions);
  for (const PlannedPoint& p : plan.points) {
    ContextCost& c = out.contexts[slot.at({p.model, p.context})];
    ++c.points;
    const ContextGroup& cg = plan.models[p.model].contexts[p.context];
    if (!cg.invalid_reason.empty()) continue;  // fails at once
    bool measured = true;
    const Speeds s = point_speeds(p.params, speeds, &measured);
    out.in_seconds = out.in_seconds && measured;
    // --min-sample-time: a sample is whole calls of the plan's tokens (sample_length.hpp)
    const double min_s = measured ? plan.spec.min_sample_time_s : 0;
    c.cost += reps * (sample_seconds(p.params.pp / s.pp, min_s) +
                      sample_seconds(p.params.tg / s.tg, min_s));
    // The KV fill up to this depth, once per depth (the first thread setting
    // of the snake pays it), at prefill speed; a fill by the timed PP is free.
    const bool first_at_depth = p.thread == (p.depth % 2 == 0 ? 0 : cg.threads.size() - 1);
    if (first_at_depth) {
      const int prev = p.depth == 0 ? 0 : cg.depths[p.depth - 1];
      const int depth = cg.depths[p.depth];
      const bool by_pp = p.depth > 0 && depth == prev + cg.n_prompt;  // kv_walk.hpp
      if (depth > prev && !by_pp) c.cost += (depth - prev) / s.pp;
    }
  }
  for (const ContextCost& c : out.contexts) out.total += c.cost;
  return out;
}

std::optional<double> estimate_seconds(const Plan& plan, const SpeedTable& speeds) {
  const PlanCost cost = estimate_cost(plan, speeds);
  if (!cost.in_seconds) return std::nullopt;
  return cost.total;
}

}  // namespace moesweep
