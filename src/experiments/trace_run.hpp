#pragma once
// `moesweep trace` as a run: checks the request, loads the model, takes the
// trace (analysis/trace_session.hpp) and only then makes its run directory
// <out_dir>/<stamp>-<name>/ with routing.trace.zst and meta.json (kind
// "routing-trace", status complete): a refused or failed trace leaves no
// directory. Never prints; the caller says what happens.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "analysis/routing_trace.hpp"
#include "analysis/trace_session.hpp"

namespace moesweep {

struct TraceRequest {
  std::filesystem::path gguf;                       // the model (a twin the caller built)
  nlohmann::json extra = nlohmann::json::object();  // more for the trace's header, e.g. "twin"
  TraceRunSettings run;
  int threads = 0;  // 0: the machine's physical cores
  std::string out_dir = "results/traces";
  std::string name = "trace";
};

// The limits the sweep keeps (sweep/spec_limits.hpp) and a name a directory
// can carry; checked before a twin is built, a model loaded or a directory
// made: past them the engine crashes. Throws UserError naming the flag.
void check_trace_request(const TraceRequest& request);

struct TraceRunDone {
  TraceModel model;  // the trace's header
  TraceRunResult result;
  std::filesystem::path file;  // <run dir>/routing.trace.zst
  uint64_t bytes = 0;          // its size
};

// Called once the model is loaded, before the first pass: what is traced.
using TraceStarted = std::function<void(const TraceModel&, const TraceRunSettings&)>;

// Checks the request, refuses a model without routed experts (UserError),
// traces it and writes the run directory. Throws EngineError / UserError.
TraceRunDone record_trace_run(TraceRequest request, const TraceStarted& started = {});

// meta.json's summary of a trace: settings, size, steps, the recorded speed,
// and the overhead passes' medians when there were any.
nlohmann::json trace_summary_json(const TraceRunResult& r, const TraceRunSettings& s,
                                  uint64_t file_bytes);

}  // namespace moesweep
