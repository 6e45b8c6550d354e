#include "sweep/kv_walk.hpp"
#include "engine/engine_util.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <memory>
#include <optional>

#include "sweep/point_watch.hpp"
#include "sweep/token_recorder.hpp"
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

}  // namespace

// The point being measured. Its repetitions are steps of their own, so that
// engines taking turns over one context interleave repetition by repetition
// (A1 B1 B2 A2 ...): a load that comes and goes then falls on both engines'
// samples of a point alike.
struct PointInProgress {
  const PlannedPoint* point = nullptr;
  size_t index = 0;        // in the walk's points
  bool keep_fill = false;  // leave the last timed PP in the cache as the fill to N_KV + PP
  bool kept_fill = false;  // ... and it did
  Record rec;
  std::unique_ptr<counters::CounterSession> tg_session, pp_session;
  std::optional<PointWatch> watch;  // issue 23: co-tenant, noise (steal, others' CPU) and energy
  std::unique_ptr<TokenRecorder> tokens;  // issue 46: per-token times, the traced passes
  int rep = 0;
};

namespace {

std::unique_ptr<PointInProgress> start_point(const WalkInputs& in, const PlannedPoint& point,
                                             size_t index, bool keep_fill) {
  auto r = std::make_unique<PointInProgress>();
  r->point = &point;
  r->index = index;
  r->keep_fill = keep_fill;
  r->rec.point_index = point.index;
  r->rec.params = point.params;
  const std::string region = fmt::format("p{}", point.index);
  r->tg_session = in.counters.session("tg", region + "-tg");
  r->pp_session = in.counters.session("pp", region + "-pp");
  r->watch.emplace(point.params, in.spec.cotenant_cpus, in.engine_pid, in.stop);
  r->tokens = std::make_unique<TokenRecorder>(in.ctx, point, in.spec.token_times, in.traces);
  return r;
}

// Another repetition of the point after `done`? The walk's rule, or the spec's.
bool another(const WalkInputs& in, const PointInProgress& r, int done) {
  return in.reps ? in.reps->more(*r.point, r.rec, done)
                 : needs_another_repetition(in.spec, r.rec, done);
}

// The calls one sample of `phase` takes at this point's cell: one untimed
// call decides when the cell has no decision yet (sweep/sample_length.hpp).
int sample_calls(const WalkInputs& in, const PointInProgress& r, const char* phase, int tokens,
                 const std::function<double()>& call) {
  if (!in.lengths || !in.lengths->active()) return 1;
  const int depth = r.point->params.n_kv;
  const int calls = in.lengths->calls(*r.point, phase, [&] {
    const double s = call();
    in.ctx.rewind_to(depth);
    return s;
  });
  return std::min(calls, INT32_MAX / std::max(tokens, 1));  // tokens x calls stays an int
}

// One timed sample of `phase`: `calls` whole calls of `tokens` tokens
// (--min-sample-time) inside the counters and the memory watch, rewound
// between the calls; each call's mean time (what sweep-bench's T_PP / T_TG
// mean for the plan's tokens) and the sample's speed recorded; then `leave`
// rewinds the cache (or keeps the last call as the next fill) before the
// listener hears of the sample. Its seconds.
double timed_sample(const WalkInputs& in, PointInProgress& r, const char* phase, int tokens,
                    int calls, counters::CounterSession& session, PhaseResult& result,
                    const std::function<double()>& call, const std::function<void()>& leave) {
  const PlannedPoint& point = *r.point;
  r.watch->phase_begin(phase);
  session.start();
  const double s = timed_calls(calls, call, [&] { in.ctx.rewind_to(point.params.n_kv); });
  session.stop(s, tokens * calls);
  r.watch->phase_end(phase);
  result.seconds.push_back(s / calls);
  result.tokens_per_s.push_back(static_cast<double>(tokens) * calls / s);
  if (in.lengths && in.lengths->active()) result.tokens_run = tokens * calls;
  leave();
  in.listener.sample({point.index, &point.params, phase, r.rep, s, tokens * calls});
  return s;
}

// A TG sample: its calls timed token by token, and with --trace-routing the
// traced pass of the same tokens before or after it (ABBA), each rewound.
void measure_tg(const WalkInputs& in, PointInProgress& r) {
  const int depth = r.point->params.n_kv;
  const std::vector<int32_t> tokens = slice(in.tokens, tg_offset(in), in.spec.n_gen);
  TokenRecorder& rec = *r.tokens;
  const auto rewind = [&] { in.ctx.rewind_to(depth); };
  const int calls =
      sample_calls(in, r, "tg", in.spec.n_gen, [&] { return in.ctx.generate(tokens, depth); });
  if (rec.pass_first(r.rep)) rec.routing_pass(tokens, depth, r.rep), rewind();
  const double s = timed_sample(
      in, r, "tg", in.spec.n_gen, calls, *r.tg_session, r.rec.tg,
      [&] { return rec.timed_call(tokens, depth, r.rep); }, rewind);
  if (rec.traced() && !rec.pass_first(r.rep)) rec.routing_pass(tokens, depth, r.rep), rewind();
  rec.sample_done(r.rep, static_cast<double>(in.spec.n_gen) * calls / s, r.tg_session->per_token(),
                  in.listener);
}

// The last call of the last PP sample at a depth may stay as the fill to N_KV + PP.
void measure_pp(const WalkInputs& in, PointInProgress& r) {
  const int depth = r.point->params.n_kv;
  const std::vector<int32_t> tokens = slice(in.tokens, depth, in.group.n_prompt);
  const auto call = [&] { return in.ctx.prefill(tokens, depth); };
  timed_sample(in, r, "pp", in.group.n_prompt, sample_calls(in, r, "pp", in.group.n_prompt, call),
               *r.pp_session, r.rec.pp, call, [&] {
                 r.kept_fill = r.keep_fill && !another(in, r, r.rep + 1);
                 if (!r.kept_fill) in.ctx.rewind_to(depth);
               });
}

// One repetition at the point's depth (the cache holds exactly N_KV): TG,
// then PP, each rewound (or the last PP kept as the next depth's fill).
void measure_repetition(const WalkInputs& in, PointInProgress& r) {
  if (in.spec.n_gen > 0) measure_tg(in, r);
  if (in.group.n_prompt > 0) measure_pp(in, r);
  ++r.rep;
}

// The point's record once its last repetition is in.
Record finish_point(const WalkInputs& in, PointInProgress& r) {
  const SweepSpec& spec = in.spec;
  r.rec.pp.counters = r.pp_session->result();
  r.rec.tg.counters = r.tg_session->result();
  r.watch->finish(r.rec);  // co-tenant stopped; noise, its facts and the phases' energy recorded
  check_cache(in, r.point->params.n_kv + (r.kept_fill ? in.group.n_prompt : 0));
  r.rec.repetitions = {r.rep, spec.target_ci_pct,
                       in.reps ? in.reps->met(*r.point, r.rec)
                               : spec.target_ci_pct <= 0 || ci_target_met(spec, r.rec),
                       spec.target_mde_pct};
  r.rec.pp.summarize();
  r.rec.tg.summarize();
  r.tokens->finish(r.rec);
  return std::move(r.rec);
}

// Untimed fill (or rewind) to `depth`, on the current threads.
void reach_depth(const WalkInputs& in, int depth, int& filled, int& current_thread,
                 AppliedThreads& applied) {
  if (depth > filled) {
    if (current_thread < 0) {
      applied = in.ctx.set_threads(in.group.threads[0]);
      current_thread = 0;
    }
    in.ctx.prefill(slice(in.tokens, filled, depth - filled), filled);
  } else if (depth < filled) {
    in.ctx.rewind_to(depth);  // an explicit depth list need not be ascending
  }
  filled = depth;
}

}  // namespace

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

KvWalk::~KvWalk() = default;

// Points are depth-major (position / threads = depth index). A fill goes
// straight to the next wanted depth: the same tokens at the same positions as
// a fill through every depth in between, so the cache holds the same. A
// point whose settings the engine did not apply as planned is not measured:
// its check comes back with the failures.
AppliedCheck KvWalk::begin_point(size_t i) {
  const PlannedPoint& point = *points_[i];
  const size_t di = i / n_threads_;
  const int depth = in_.group.depths[di];
  const int n_prompt = in_.group.n_prompt;
  if (in_.in_progress) *in_.in_progress = &point;  // the fill is charged to it
  reach_depth(in_, depth, filled_, current_thread_, applied_threads_);
  // The timed PP covers exactly the tokens a fill to depth + PP would add.
  const bool deeper_wanted = next_wanted((di + 1) * n_threads_) < points_.size();
  const bool pp_is_next_fill = n_prompt > 0 && deeper_wanted && di + 1 < in_.group.depths.size() &&
                               in_.group.depths[di + 1] == depth + n_prompt;
  const bool last_at_depth = next_wanted(i + 1) >= (di + 1) * n_threads_;
  const int thread = static_cast<int>(point.thread);  // the snake's, not the position's
  const ThreadSettings& threads = in_.group.threads[point.thread];
  const bool switched = current_thread_ != thread || !warmed_;
  if (switched) {
    applied_threads_ = in_.ctx.set_threads(threads);
    current_thread_ = thread;
  }
  // The same settings give the same answer: a point after a refused one at
  // its thread setting is refused too, so a switch is never left unwarmed.
  AppliedCheck check =
      check_applied(in_.ctx.params(), threads, in_.ctx.applied(), applied_threads_);
  if (!check.failures.empty()) return check;
  if (switched) {
    warm_up(in_, depth, !warmed_);  // after every context creation and thread switch
    warmed_ = true;
    in_.counters.threads_changed(in_.ctx.pid());
  }
  current_ = start_point(in_, point, i, pp_is_next_fill && last_at_depth);
  current_->rec.extra.applied = applied_from_json(check.applied);
  current_->rec.extra.applied_notes = check.notes;
  return check;
}

// A point the engine would measure with other settings than planned: failed
// with the reason, unmeasured, the applied values beside it.
Record KvWalk::refused_point(size_t i, const AppliedCheck& check) {
  const PlannedPoint& point = *points_[i];
  Record rec;
  rec.point_index = point.index;
  rec.params = point.params;
  rec.ok = false;
  rec.error = fmt::format("{}", fmt::join(check.failures, "; "));
  rec.extra.applied = applied_from_json(check.applied);
  if (in_.in_progress) *in_.in_progress = nullptr;
  next_ = i + 1;
  return rec;
}

bool KvWalk::step(const PointDone& done) {
  const size_t i = current_ ? current_->index : next_wanted(next_);
  if (i >= points_.size()) return false;
  if (in_.stop.load()) {
    stopped_ = true;  // a point in progress is dropped, as an interrupted one
    return false;
  }
  if (!current_) {
    const AppliedCheck check = begin_point(i);
    if (!check.failures.empty()) {
      done(*points_[i], refused_point(i, check));
      return true;
    }
  }
  measure_repetition(in_, *current_);
  if (another(in_, *current_, current_->rep)) return true;
  Record rec = finish_point(in_, *current_);
  if (current_->kept_fill) filled_ = current_->point->params.n_kv + in_.group.n_prompt;
  if (in_.in_progress) *in_.in_progress = nullptr;
  next_ = current_->index + 1;
  const PlannedPoint& point = *current_->point;
  current_.reset();
  done(point, std::move(rec));
  return true;
}

}  // namespace moesweep
