#pragma once
// KvWalk: one pass over the depths of one live context, sweep-bench style.
// At each depth N_KV: for every thread configuration (switched on the live
// context, then warmed up) and repetition, time TG of n_gen tokens and PP of
// n_prompt tokens, each rewound to N_KV afterwards; then fill (untimed) to the
// next depth. A threads x depth table thus costs one walk, not one prefill
// per cell.
#include <atomic>
#include <functional>
#include <vector>

#include "counters/counter_backend.hpp"
#include "engine/llama_engine.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_observer.hpp"

namespace moesweep {

struct WalkInputs {
  LiveContext& ctx;
  const ContextGroup& group;
  const SweepSpec& spec;
  const std::vector<int32_t>&
      tokens;  // fixed-seed random stream, long enough for the deepest point
  counters::CounterBackend& counters;
  RunObserver& observer;
  const std::atomic<bool>& stop;
};

// Called with each finished point (ok or failed); returns false to stop.
using PointDone = std::function<void(const PlannedPoint&, Record&&)>;

// points: all of the plan's points of this context, in run order (depth-major,
// thread-minor). Only those `wanted` are measured (resume skips the rest; the
// walk still fills through their depths). Returns false if stopped by the user.
bool run_kv_walk(const WalkInputs& in, const std::vector<const PlannedPoint*>& points,
                 const std::function<bool(const PlannedPoint&)>& wanted, const PointDone& done);

}  // namespace moesweep
