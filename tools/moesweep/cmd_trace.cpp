// `moesweep trace [GGUF]`: record which experts every MoE layer selects for
// every prefilled and generated token (the engine's eval callback, no engine
// patch) into <out-dir>/<stamp>-<name>/routing.trace.zst, for `moesweep l3`.
// Without a GGUF it traces a twin (the same options as synth).
#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "experiments/trace_run.hpp"
#include "model/twin_builder.hpp"
#include "twin_options.hpp"
#include "util/stop_signal.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

struct TraceOptions {
  std::string gguf;
  TwinOptions twin;
  std::string quant = "Q4_K_S";
  TraceRequest request;
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

int run_trace(TraceOptions o) {
  check_trace_request(o.request);  // before a twin is built
  {
    const StopOnSignal stop;  // Ctrl-C or SIGTERM: the twin's .tmp files are removed, exit 130
    o.request.gguf = model_file(o, o.request.extra);
  }
  const std::string model = o.request.gguf.filename().string();
  auto started = [&](const TraceModel& m, const TraceRunSettings& s) {
    print_wrapped(fmt::format(
        "tracing {} ({} layers, {} experts, {} used): {} prompt + {} generated tokens, {} "
        "threads",
        model, m.n_layer, m.n_expert, m.n_expert_used, s.n_prompt, s.n_gen, s.threads.n_threads));
  };
  const TraceRunDone done = record_trace_run(o.request, started);
  print_speeds(done.result, o.request.run);
  fmt::print("trace: {} ({} steps, {:.1f} KiB)\n", done.file.string(),
             done.result.trace.steps.size(), static_cast<double>(done.bytes) / 1024);
  fmt::print("next:  moesweep l3 {}\n", done.file.string());
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
  cmd->add_option("--prompt,-p", o->request.run.n_prompt, "prompt tokens (prefill)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--gen,-n", o->request.run.n_gen, "generated tokens (one decode step each)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--threads,-t", o->request.threads, "threads (default: physical cores)")
      ->check(positive());
  cmd->add_option("--ubatch-size", o->request.run.context.n_ubatch, "micro-batch of the prefill")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--token-seed", o->request.run.token_seed,
                  "seed of the random prompt/generation tokens")
      ->capture_default_str();
  cmd->add_option("--overhead", o->request.run.overhead_reps,
                  "also time N untraced and N traced passes, alternated (tracing's cost)")
      ->check(non_negative());
  cmd->add_option("--out-dir", o->request.out_dir, "where the trace's directory goes")
      ->capture_default_str();
  cmd->add_option("--name", o->request.name, "name of the trace's directory")
      ->capture_default_str();
  cmd->callback([&run, o] { run = [o] { return run_trace(*o); }; });
}

}  // namespace moesweep::cli
