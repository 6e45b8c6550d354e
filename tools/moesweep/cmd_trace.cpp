// `moesweep trace [GGUF]`: record which experts every MoE layer selects for
// every prefilled and generated token (the engine's eval callback, no engine
// patch) into <out-dir>/<stamp>-<name>/routing.trace.zst, for `moesweep l3`.
// Without a GGUF it traces a twin (the same options as synth).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "analysis/trace_session.hpp"
#include "commands.hpp"
#include "hw/topology.hpp"
#include "model/gguf_inspect.hpp"
#include "model/twin_builder.hpp"
#include "sweep/run_directory.hpp"
#include "sweep/spec_limits.hpp"
#include "twin_options.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

struct TraceOptions {
  std::string gguf;
  TwinOptions twin;
  std::string quant = "Q4_K_S";
  TraceRunSettings run;
  int threads = 0;
  std::string out_dir = "results/traces", name = "trace";
};

// The GGUF to trace and what the trace header should say about where it came from.
std::filesystem::path model_file(const TraceOptions& o, nlohmann::json& extra) {
  if (!o.gguf.empty()) return o.gguf;
  const TwinSpec spec = o.twin.spec_for(o.quant);
  extra["twin"] = spec.to_json();
  auto progress = [](const std::string& stage) { fmt::print(stderr, "[synth] {}\n", stage); };
  return ensure_twin(spec, {}, false, progress).path;
}

void print_speeds(const TraceRunResult& r, const TraceRunSettings& s) {
  fmt::print("recorded pass: PP {:.1f} t/s, TG {:.2f} t/s\n", r.recorded.pp_tps, r.recorded.tg_tps);
  if (r.untraced.empty()) return;
  const PassSpeed off = median_speed(r.untraced), on = median_speed(r.traced);
  auto pct = [](double on_tps, double off_tps) {
    return off_tps > 0 ? 100.0 * (off_tps - on_tps) / off_tps : 0.0;
  };
  fmt::print(
      "overhead ({} alternated passes each, medians): PP {:.1f} -> {:.1f} t/s ({:+.1f}%), "
      "TG {:.2f} -> {:.2f} t/s ({:+.1f}%)\n",
      s.overhead_reps, off.pp_tps, on.pp_tps, -pct(on.pp_tps, off.pp_tps), off.tg_tps, on.tg_tps,
      -pct(on.tg_tps, off.tg_tps));
}

nlohmann::json summary_json(const TraceRunResult& r, const TraceRunSettings& s,
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

// The limits the sweep keeps (sweep/spec_limits.hpp), checked before a twin
// is built, a model loaded or a directory made: past them the engine crashes.
void check_trace_limits(const TraceOptions& o) {
  check_value_limit("threads", "--threads", o.threads, 0);
  check_value_limit("n-prompt", "--prompt", o.run.n_prompt, 0);
  check_value_limit("n-gen", "--gen", o.run.n_gen, 0);
  check_value_limit("ubatch-size", "--ubatch-size", o.run.context.n_ubatch, 1);
  check_value_limit("repetitions", "--overhead", o.run.overhead_reps, 0);
  if (o.run.n_prompt + o.run.n_gen < 1) {
    throw UserError("--prompt 0 --gen 0 traces no token", "at least one prompt or generated token",
                    "pass --prompt 512 (the default) or --gen N");
  }
  if (o.run.n_prompt + o.run.n_gen > kMaxContext) {
    throw UserError(fmt::format("--prompt {} + --gen {} is more than {} tokens", o.run.n_prompt,
                                o.run.n_gen, kMaxContext),
                    "a trace that fits moesweep's largest context", "lower --prompt or --gen");
  }
  RunDirectory::check_name(o.name);
}

int run_trace(TraceOptions o) {
  check_trace_limits(o);
  nlohmann::json extra = nlohmann::json::object();
  const std::filesystem::path path = model_file(o, extra);
  const GgufInspection inspection = inspect_gguf(path);
  if (inspection.n_expert <= 0)
    throw UserError(fmt::format("'{}' has no routed experts ({})", path.string(), inspection.arch),
                    "a Mixture-of-Experts GGUF (expert_count > 0)",
                    "trace an MoE model; a dense model has no routing to record");
  TraceModel facts = trace_model_from(inspection);
  o.run.threads.n_threads = o.run.threads.n_threads_batch =
      o.threads > 0 ? o.threads : std::max(1, probe_topology().cores);
  ModelLoadParams load;
  load.path = path.string();
  const LoadedModel model(load);
  extra["settings"] = {{"n_prompt", o.run.n_prompt},
                       {"n_gen", o.run.n_gen},
                       {"n_threads", o.run.threads.n_threads},
                       {"n_ubatch", o.run.context.n_ubatch}};
  facts.extra = extra;
  fmt::print(
      "tracing {} ({} layers, {} experts, {} used): {} prompt + {} generated tokens, {} threads\n",
      path.filename().string(), facts.n_layer, facts.n_expert, facts.n_expert_used, o.run.n_prompt,
      o.run.n_gen, o.run.threads.n_threads);
  const TraceRunResult r = run_traced(model, facts, o.run);
  // Made once the trace is taken: a refused or failed trace leaves no directory.
  RunDirectory dir = RunDirectory::create(o.out_dir, o.name);
  const auto file = dir.file("routing.trace.zst");
  const uint64_t bytes = write_routing_trace(r.trace, file);
  RunMeta meta;
  meta.kind = "routing-trace";
  meta.run_id = dir.run_id();
  meta.name = o.name;
  meta.status = RunStatus::kComplete;
  meta.other = summary_json(r, o.run, bytes);
  meta.other["model"] = to_json(facts);
  dir.write_meta(meta);
  print_speeds(r, o.run);
  fmt::print("trace: {} ({} steps, {:.1f} KiB)\n", file.string(), r.trace.steps.size(),
             static_cast<double>(bytes) / 1024);
  fmt::print("next:  moesweep l3 {}\n", file.string());
  return 0;
}

}  // namespace

void add_trace_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<TraceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trace", "record every MoE layer's selected experts per token (for `moesweep l3`)");
  cmd->add_option("gguf", o->gguf, "GGUF to trace (default: a twin from --model/--scale/...)");
  o->twin.add_to(*cmd);
  cmd->add_option("--quant,-q", o->quant, "quant type of the twin")->capture_default_str();
  cmd->add_option("--prompt,-p", o->run.n_prompt, "prompt tokens (prefill)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--gen,-n", o->run.n_gen, "generated tokens (one decode step each)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--threads,-t", o->threads, "threads (default: physical cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ubatch-size", o->run.context.n_ubatch, "micro-batch of the prefill")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--token-seed", o->run.token_seed, "seed of the random prompt/generation tokens")
      ->capture_default_str();
  cmd->add_option("--overhead", o->run.overhead_reps,
                  "also time N untraced and N traced passes, alternated (tracing's cost)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out-dir", o->out_dir, "where the trace's directory goes")
      ->capture_default_str();
  cmd->add_option("--name", o->name, "name of the trace's directory")->capture_default_str();
  cmd->callback([&run, o] { run = [o] { return run_trace(*o); }; });
}

}  // namespace moesweep::cli
