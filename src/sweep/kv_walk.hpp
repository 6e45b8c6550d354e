#pragma once
// KvWalk: one pass over the depths of one live context, sweep-bench style.
// At each depth N_KV: for every thread configuration (switched on the live
// context, then warmed up) and repetition, time TG of n_gen tokens and PP of
// n_prompt tokens, each rewound to N_KV afterwards; then fill (untimed) to the
// next depth. A threads x depth table thus costs one walk, not one prefill
// per cell. Less untimed work: when the next depth is one PP deeper, the last
// timed PP at a depth stays in the cache as that fill (as sweep-bench does),
// and the plan orders thread settings in a snake so consecutive depths share
// one (no switch and warm-up there).
#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "counters/counter_backend.hpp"
#include "engine/engine.hpp"
#include "results/sink.hpp"
#include "sweep/plan.hpp"
#include "sweep/repetition_rule.hpp"
#include "sweep/routing_trace_factory.hpp"
#include "sweep/sample_length.hpp"

namespace moesweep {

struct WalkInputs {
  LiveContext& ctx;
  const ContextGroup& group;
  const SweepSpec& spec;
  const std::vector<int32_t>&
      tokens;  // fixed-seed random stream, long enough for the deepest point
  counters::CounterBackend& counters;
  RunListener& listener;  // gets every sample
  const std::atomic<bool>& stop;
  // Set to the point being measured, or about to be (its depth being filled):
  // the one an engine crash fails.
  const PlannedPoint** in_progress = nullptr;
  pid_t engine_pid;  // the engine's process: its own CPU time is no other process's (issue 23)
  // When a point has had enough repetitions (shared by the engines of a
  // context); null: -r and --target-ci alone (needs_another_repetition).
  RepetitionRule* reps = nullptr;
  // How many calls of -n (-p) tokens make one sample (--min-sample-time),
  // shared by the engines of a context like `reps`; null: one call.
  SampleLength* lengths = nullptr;
  // --trace-routing: the context's trace (its routing observer is on the
  // context); each TG sample then runs untraced and beside a traced pass of
  // its tokens (sweep/token_recorder.hpp). Null: untraced.
  RoutingTraceFactory* traces = nullptr;
};

// Called with each finished point (ok or failed); the walk stops on `stop`.
using PointDone = std::function<void(const PlannedPoint&, Record&&)>;

// points: all of the plan's points of this context, in run order (depth-major,
// thread-minor, threads in a snake). Only those `wanted` are measured (resume skips the rest; the
// walk still fills through their depths). Returns false if stopped by the user.
bool run_kv_walk(const WalkInputs& in, const std::vector<const PlannedPoint*>& points,
                 const std::function<bool(const PlannedPoint&)>& wanted, const PointDone& done);

struct PointInProgress;  // kv_walk.cpp

// The same walk one repetition at a time, so that the walks of several
// engines over one context can take turns repetition by repetition (sweep
// --engine a,b: ABBA, runner.cpp). run_kv_walk is `while (walk.step(done))`.
class KvWalk {
 public:
  KvWalk(const WalkInputs& in, std::vector<const PlannedPoint*> points,
         std::function<bool(const PlannedPoint&)> wanted);
  ~KvWalk();
  // One repetition of the point in progress; the first one fills to the next
  // wanted point's depth first, the last hands the point to `done`. False
  // when no wanted point is left, or when stopped by the user (then
  // stopped() is true).
  bool step(const PointDone& done);
  bool stopped() const { return stopped_; }

 private:
  size_t next_wanted(size_t from) const;
  AppliedCheck begin_point(size_t index);
  Record refused_point(size_t index, const AppliedCheck& check);
  WalkInputs in_;
  std::vector<const PlannedPoint*> points_;
  std::function<bool(const PlannedPoint&)> wanted_;
  size_t n_threads_ = 1;
  size_t next_ = 0;  // position in points_ to look from
  int filled_ = 0;
  int current_thread_ = -1;
  AppliedThreads applied_threads_;  // what the engine holds of the current thread setting
  bool warmed_ = false;
  bool stopped_ = false;
  std::unique_ptr<PointInProgress> current_;
};

}  // namespace moesweep
