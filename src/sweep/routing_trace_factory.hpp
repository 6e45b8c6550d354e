#pragma once
// sweep --trace-routing: hands out the observer that records one context's
// routing, and is told when the context is done so the trace can be written
// (experiments/run_dir_traces.hpp writes them into the run). The KV walk asks
// where the trace stands when a TG call begins, so each call's tokens line up
// with their steps in the trace (issue 46: tokens.jsonl's "trace").
#include <cstdint>
#include <string>

#include "engine/engine_types.hpp"

namespace moesweep {

class RoutingObserver;

class RoutingTraceFactory {
 public:
  virtual ~RoutingTraceFactory() = default;
  // The observer of context `context_index` (null: this context runs untraced).
  virtual RoutingObserver* start(const ModelFacts& model, size_t context_index) = 0;
  virtual void finish() = 0;
  // The current context's trace: its file name in the run directory, and the
  // steps recorded so far.
  virtual std::string file_name() const = 0;
  virtual int64_t steps() const = 0;
};

}  // namespace moesweep
