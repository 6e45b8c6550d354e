#include "sweep/kv_walk.hpp"
#include "engine/engine_util.hpp"

#include <fmt/format.h>

#include <optional>

#include "sweep/point_watch.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

std::vector<int32_t> slice(const std::vector<int32_t>& v, int from, int n) {
  return {v.begin() + from, v.begin() + from + n};
}

// The TG tokens are a separate stretch of the stream (after the deepest
// point), so a rewound generation never changes what the cache will hold.
int tg_offset(const WalkInputs& in) {
  return static_cast<int>(in.tokens.size()) - in.spec.n_gen;
}

// After a context creation: one untimed PP of the full size and a few TG
// steps, so the timed samples find the graphs, compute buffers and expert
// pages ready (a 32-token warm-up left the first repetitions up to 25% slow).
// After a thread switch only the new threads need waking: a short one.
void warm_up(const WalkInputs& in, int depth, bool after_context_creation) {
  const int pp = after_context_creation ? in.group.n_prompt : std::min(in.group.n_prompt, 32);
  if (pp > 0) {
    in.ctx.prefill(slice(in.tokens, depth, pp), depth);
    in.ctx.rewind_to(depth);
  }
  if (in.spec.n_gen > 0) {
    in.ctx.generate(
        slice(in.tokens, tg_offset(in), std::min(in.spec.n_gen, after_context_creation ? 4 : 1)),
        depth);
    in.ctx.rewind_to(depth);
  }
}

void check_cache(const WalkInputs& in, int expected) {
  const int held = in.ctx.cached_tokens();
  if (held != expected) {
    throw EngineError(
        fmt::format("after rewinding, the KV cache holds {} tokens instead of {}", held, expected));
  }
}

bool ci_target_met(const SweepSpec& spec, const Record& rec) {
  for (const PhaseResult* phase : {&rec.pp, &rec.tg}) {
    if (phase->tokens_per_s.empty()) continue;
    const Stats s = Stats::of(phase->tokens_per_s);
    if (s.n < 2 || s.ci95_pct() > spec.target_ci_pct) return false;
  }
  return true;
}

struct Measured {
  Record rec;
  bool kept_fill = false;  // the last timed PP stayed in the cache
};

// All repetitions of one point at its depth (the cache holds exactly N_KV).
// keep_fill: leave the last timed PP in the cache as the fill to N_KV + PP.
// nullopt when stopped by the user.
std::optional<Measured> measure_point(const WalkInputs& in, const PlannedPoint& point,
                                      bool keep_fill) {
  const SweepSpec& spec = in.spec;
  const int depth = point.params.n_kv;
  const int n_prompt = in.group.n_prompt;
  Measured m;
  m.rec.point_index = point.index;
  m.rec.params = point.params;
  const std::string region = fmt::format("p{}", point.index);
  auto tg_session = in.counters.session("tg", region + "-tg");
  auto pp_session = in.counters.session("pp", region + "-pp");
  // issue 23 hook: co-tenant started, noise (steal, others' CPU time) and energy read
  PointWatch watch(point.params, spec.cotenant_cpus, in.engine_pid);
  int rep = 0;
  do {
    if (in.stop.load()) return std::nullopt;
    if (spec.n_gen > 0) {
      watch.phase_begin("tg");
      tg_session->start();
      const double s = in.ctx.generate(slice(in.tokens, tg_offset(in), spec.n_gen), depth);
      tg_session->stop(s, spec.n_gen);
      watch.phase_end("tg");
      in.ctx.rewind_to(depth);
      m.rec.tg.seconds.push_back(s);
      m.rec.tg.tokens_per_s.push_back(spec.n_gen / s);
      in.listener.sample({point.index, &point.params, "tg", rep, s, spec.n_gen});
    }
    if (n_prompt > 0) {
      watch.phase_begin("pp");
      pp_session->start();
      const double s = in.ctx.prefill(slice(in.tokens, depth, n_prompt), depth);
      pp_session->stop(s, n_prompt);
      watch.phase_end("pp");
      m.rec.pp.seconds.push_back(s);
      m.rec.pp.tokens_per_s.push_back(n_prompt / s);
      m.kept_fill = keep_fill && !needs_another_repetition(spec, m.rec, rep + 1);
      if (!m.kept_fill) in.ctx.rewind_to(depth);
      in.listener.sample({point.index, &point.params, "pp", rep, s, n_prompt});
    }
    ++rep;
  } while (needs_another_repetition(spec, m.rec, rep));
  m.rec.pp.counters = pp_session->result();
  m.rec.tg.counters = tg_session->result();
  watch.finish(m.rec);  // co-tenant stopped; noise, its facts and the phases' energy recorded
  check_cache(in, depth + (m.kept_fill ? n_prompt : 0));
  m.rec.repetitions = {rep, spec.target_ci_pct,
                       spec.target_ci_pct <= 0 || ci_target_met(spec, m.rec)};
  m.rec.pp.summarize();
  m.rec.tg.summarize();
  return m;
}

// Untimed fill (or rewind) to `depth`, on the current threads.
void reach_depth(const WalkInputs& in, int depth, int& filled, int& current_thread) {
  if (depth > filled) {
    if (current_thread < 0) {
      in.ctx.set_threads(in.group.threads[0]);
      current_thread = 0;
    }
    in.ctx.prefill(slice(in.tokens, filled, depth - filled), filled);
  } else if (depth < filled) {
    in.ctx.rewind_to(depth);  // an explicit depth list need not be ascending
  }
  filled = depth;
}

}  // namespace

bool needs_another_repetition(const SweepSpec& spec, const Record& rec, int done) {
  if (done < spec.repetitions) return true;
  if (spec.target_ci_pct <= 0 || done >= spec.max_repetitions) return false;
  return !ci_target_met(spec, rec);
}

bool run_kv_walk(const WalkInputs& in, const std::vector<const PlannedPoint*>& points,
                 const std::function<bool(const PlannedPoint&)>& wanted, const PointDone& done) {
  KvWalk walk(in, points, wanted);
  while (walk.step(done)) {
  }
  return !walk.stopped();
}

KvWalk::KvWalk(const WalkInputs& in, std::vector<const PlannedPoint*> points,
               std::function<bool(const PlannedPoint&)> wanted)
    : in_(in),
      points_(std::move(points)),
      wanted_(std::move(wanted)),
      n_threads_(std::max<size_t>(1, in.group.threads.size())) {}

size_t KvWalk::next_wanted(size_t from) const {
  while (from < points_.size() && !wanted_(*points_[from])) ++from;
  return from;
}

// Points are depth-major (position / threads = depth index). A fill goes
// straight to the next wanted depth: the same tokens at the same positions as
// a fill through every depth in between, so the cache holds the same.
bool KvWalk::step(const PointDone& done) {
  const size_t i = next_wanted(next_);
  if (i >= points_.size()) return false;
  if (in_.stop.load()) {
    stopped_ = true;
    return false;
  }
  const PlannedPoint& point = *points_[i];
  const size_t di = i / n_threads_;
  const int depth = in_.group.depths[di];
  const int n_prompt = in_.group.n_prompt;
  if (in_.in_progress) *in_.in_progress = &point;  // the fill is charged to it
  reach_depth(in_, depth, filled_, current_thread_);
  // The timed PP covers exactly the tokens a fill to depth + PP would add.
  const bool deeper_wanted = next_wanted((di + 1) * n_threads_) < points_.size();
  const bool pp_is_next_fill = n_prompt > 0 && deeper_wanted && di + 1 < in_.group.depths.size() &&
                               in_.group.depths[di + 1] == depth + n_prompt;
  const bool last_at_depth = next_wanted(i + 1) >= (di + 1) * n_threads_;
  const int thread = static_cast<int>(point.thread);  // the snake's, not the position's
  if (current_thread_ != thread || !warmed_) {
    in_.ctx.set_threads(in_.group.threads[point.thread]);
    current_thread_ = thread;
    warm_up(in_, depth, !warmed_);  // after every context creation and thread switch
    warmed_ = true;
    in_.counters.threads_changed(in_.ctx.pid());
  }
  std::optional<Measured> m = measure_point(in_, point, pp_is_next_fill && last_at_depth);
  if (!m) {
    stopped_ = true;
    return false;
  }
  if (m->kept_fill) filled_ = depth + n_prompt;
  if (in_.in_progress) *in_.in_progress = nullptr;
  next_ = i + 1;
  done(point, std::move(m->rec));
  return true;
}

}  // namespace moesweep
