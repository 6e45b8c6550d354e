#pragma once
// Takes a routing trace: one prefill of n_prompt tokens, then n_gen
// generation steps, on a context whose eval callback records the experts.
// Optionally measures what tracing costs: the same passes on an untraced
// context and on the traced one, alternated, same tokens, same threads.
#include <cstdint>
#include <vector>

#include "analysis/routing_trace.hpp"
#include "engine/engine.hpp"

namespace moesweep {

struct TraceRunSettings {
  int n_prompt = 512, n_gen = 128;
  ContextParams context;  // n_ctx is raised to fit n_prompt + n_gen
  ThreadSettings threads;
  uint64_t token_seed = 1;  // the prompt and generation tokens (random ids, as the sweep feeds)
  int overhead_reps = 0;    // 0: no untraced passes
};

struct PassSpeed {
  double pp_tps = 0, tg_tps = 0;
};

struct TraceRunResult {
  RoutingTrace trace;                       // the first traced pass
  PassSpeed recorded;                       // its speed
  std::vector<PassSpeed> untraced, traced;  // overhead_reps each, alternated
};

// `facts` becomes the trace's header. Throws EngineError / UserError.
TraceRunResult run_traced(const LoadedModel& model, const TraceModel& facts,
                          const TraceRunSettings& settings);

// Median tokens/s of the passes; 0 when there are none.
PassSpeed median_speed(const std::vector<PassSpeed>& passes);

}  // namespace moesweep
