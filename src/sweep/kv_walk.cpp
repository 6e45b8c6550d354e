#include "sweep/kv_walk.hpp"

#include <fmt/format.h>

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

bool run_kv_walk(const WalkInputs& in, const std::vector<const PlannedPoint*>& points,
                 const std::function<bool(const PlannedPoint&)>& wanted, const PointDone& done) {
  const SweepSpec& spec = in.spec;
  const size_t n_threads = in.group.threads.size();
  size_t last_depth = 0;  // nothing wanted past it: stop walking there
  for (size_t i = 0; i < points.size(); ++i)
    if (wanted(*points[i])) last_depth = i / n_threads + 1;
  int filled = 0;
  int current_thread = -1;
  bool warmed = false;
  for (size_t di = 0; di < last_depth; ++di) {
    const int depth = in.group.depths[di];
    if (depth > filled) {  // untimed fill to the next depth, on the current threads
      if (current_thread < 0) {
        in.ctx.set_threads(in.group.threads[0]);
        current_thread = 0;
      }
      in.ctx.prefill(slice(in.tokens, filled, depth - filled), filled);
      filled = depth;
    } else if (depth < filled) {
      in.ctx.rewind_to(depth);  // an explicit depth list need not be ascending
      filled = depth;
    }
    for (size_t ti = 0; ti < n_threads; ++ti) {
      if (in.stop.load()) return false;
      const PlannedPoint& point = *points[di * n_threads + ti];
      if (!wanted(point)) continue;
      Record rec;
      rec.point_index = point.index;
      rec.params = point.params;
      if (current_thread != static_cast<int>(ti) || !warmed) {
        in.ctx.set_threads(in.group.threads[ti]);
        current_thread = static_cast<int>(ti);
        warm_up(in, depth, !warmed);  // after every context creation and thread switch
        warmed = true;
        in.counters.threads_changed();
      }
      const std::string region = fmt::format("p{}", point.index);
      auto tg_session = in.counters.session("tg", region + "-tg");
      auto pp_session = in.counters.session("pp", region + "-pp");
      for (int rep = 0; rep < spec.repetitions; ++rep) {
        if (in.stop.load()) return false;
        if (spec.n_gen > 0) {
          tg_session->start();
          const double s = in.ctx.generate(slice(in.tokens, tg_offset(in), spec.n_gen), depth);
          tg_session->stop(s, spec.n_gen);
          in.ctx.rewind_to(depth);
          rec.tg.seconds.push_back(s);
          rec.tg.tokens_per_s.push_back(spec.n_gen / s);
          in.observer.on_sample(point, "tg", rep, s, spec.n_gen);
        }
        if (in.group.n_prompt > 0) {
          pp_session->start();
          const double s = in.ctx.prefill(slice(in.tokens, depth, in.group.n_prompt), depth);
          pp_session->stop(s, in.group.n_prompt);
          in.ctx.rewind_to(depth);
          rec.pp.seconds.push_back(s);
          rec.pp.tokens_per_s.push_back(in.group.n_prompt / s);
          in.observer.on_sample(point, "pp", rep, s, in.group.n_prompt);
        }
      }
      check_cache(in, depth);
      rec.pp.counters = pp_session->result();
      rec.tg.counters = tg_session->result();
      rec.pp.summarize();
      rec.tg.summarize();
      done(point, std::move(rec));
    }
  }
  return true;
}

}  // namespace moesweep
