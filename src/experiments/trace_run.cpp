#include "experiments/trace_run.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hw/topology.hpp"
#include "model/gguf_inspect.hpp"
#include "run/run_lifecycle.hpp"
#include "sweep/spec_limits.hpp"
#include "util/error.hpp"

namespace moesweep {

void check_trace_request(const TraceRequest& r) {
  check_value_limit("threads", "--threads", r.threads, 0);
  check_value_limit("n-prompt", "--prompt", r.run.n_prompt, 0);
  check_value_limit("n-gen", "--gen", r.run.n_gen, 0);
  check_value_limit("ubatch-size", "--ubatch-size", r.run.context.n_ubatch, 1);
  check_value_limit("repetitions", "--overhead", r.run.overhead_reps, 0);
  if (r.run.n_prompt + r.run.n_gen < 1) {
    throw UserError("--prompt 0 --gen 0 traces no token", "at least one prompt or generated token",
                    "pass --prompt 512 (the default) or --gen N");
  }
  if (r.run.n_prompt + r.run.n_gen > kMaxContext) {
    throw UserError(fmt::format("--prompt {} + --gen {} is more than {} tokens", r.run.n_prompt,
                                r.run.n_gen, kMaxContext),
                    "a trace that fits moesweep's largest context", "lower --prompt or --gen");
  }
  RunDirectory::check_name(r.name);
}

nlohmann::json trace_summary_json(const TraceRunResult& r, const TraceRunSettings& s,
                                  uint64_t file_bytes) {
  nlohmann::json j{{"n_prompt", s.n_prompt},
                   {"n_gen", s.n_gen},
                   {"n_threads", s.threads.n_threads},
                   {"n_ubatch", s.context.n_ubatch},
                   {"token_seed", s.token_seed},
                   {"trace_bytes", file_bytes},
                   {"steps", r.trace.steps.size()},
                   {"recorded", {{"pp_tps", r.recorded.pp_tps}, {"tg_tps", r.recorded.tg_tps}}}};
  if (!r.untraced.empty()) {
    const PassSpeed off = median_speed(r.untraced), on = median_speed(r.traced);
    j["overhead"] = {{"passes", s.overhead_reps},
                     {"untraced", {{"pp_tps", off.pp_tps}, {"tg_tps", off.tg_tps}}},
                     {"traced", {{"pp_tps", on.pp_tps}, {"tg_tps", on.tg_tps}}}};
  }
  return j;
}

namespace {

// The trace's header: the model's routing facts, where it came from, and the
// settings it was taken with.
TraceModel trace_header(const GgufInspection& inspection, const TraceRequest& r) {
  TraceModel facts = trace_model_from(inspection);
  facts.extra = r.extra;
  facts.extra["settings"] = {{"n_prompt", r.run.n_prompt},
                             {"n_gen", r.run.n_gen},
                             {"n_threads", r.run.threads.n_threads},
                             {"n_ubatch", r.run.context.n_ubatch}};
  return facts;
}

// Made once the trace is taken: a refused or failed trace leaves no
// directory; one that cannot be written there says "failed" in meta.json.
std::filesystem::path write_trace_run(const TraceRequest& r, const TraceRunDone& done,
                                      uint64_t* bytes) {
  RunLifecycle run(RunDirectory::create(r.out_dir, r.name));
  RunMeta& meta = run.meta();
  meta.kind = RunKind::kRoutingTrace;
  meta.name = r.name;
  meta.kind_facts["model"] = to_json(done.model);
  run.begin();
  const std::filesystem::path file = run.dir().file("routing.trace.zst");
  run.guarded([&] {
    *bytes = write_routing_trace(done.result.trace, file);
    meta.kind_facts.update(trace_summary_json(done.result, r.run, *bytes));
    run.end(RunStatus::kComplete);
  });
  return file;
}

}  // namespace

TraceRunDone record_trace_run(TraceRequest r, const TraceStarted& started) {
  check_trace_request(r);
  const GgufInspection inspection = inspect_gguf(r.gguf);
  if (inspection.n_expert <= 0)
    throw UserError(
        fmt::format("'{}' has no routed experts ({})", r.gguf.string(), inspection.arch),
        "a Mixture-of-Experts GGUF (expert_count > 0)",
        "trace an MoE model; a dense model has no routing to record");
  r.run.threads.n_threads = r.run.threads.n_threads_batch =
      r.threads > 0 ? r.threads : std::max(1, probe_topology().cores);
  ModelLoadParams load;
  load.path = r.gguf.string();
  const LoadedModel model(load);
  TraceRunDone done;
  done.model = trace_header(inspection, r);
  if (started) started(done.model, r.run);
  done.result = run_traced(model, done.model, r.run);
  done.file = write_trace_run(r, done, &done.bytes);
  return done;
}

}  // namespace moesweep
