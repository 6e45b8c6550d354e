// `moesweep serve-bench`: benchmark llama-server (started here, with the
// twin or a GGUF) or any running server (--url) with workloads from
// profiles/workloads, printing the seeds' per-request table.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "model/twin_builder.hpp"
#include "model/twin_vocab.hpp"
#include "serve/serve_bench.hpp"
#include "serve_traffic_options.hpp"
#include "sweep/sweep_settings.hpp"
#include "twin_options.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"
#include "util/stop_signal.hpp"

namespace moesweep::cli {
namespace {

// serve-bench's words: progress and each request on stderr, each workload's
// tables on stdout as it finishes.
class ServeBenchPrinter : public ServeBenchListener {
 public:
  void note(const std::string& line) override { fmt::print(stderr, "[serve-bench] {}\n", line); }
  void request(const nlohmann::json& r) override {
    const std::string how =
        r.value("ok", false)
            ? fmt::format("TTFT {:.1f} ms, E2E {:.1f} ms, cache_n {}", r.value("ttft_ms", 0.0),
                          r.value("e2e_ms", 0.0), r.value("cache_n", 0))
            : "FAILED: " + r.value("error", std::string());
    fmt::print(stderr, "[serve-bench] {:<12} {}\n", r.value("task", std::string()), how);
  }
  void workload_done(const std::string& tables) override {
    fmt::print("{}", tables);
    std::fflush(stdout);
  }
  void end(const RunMeta& meta, RunStatus) override {
    fmt::print(stderr, "[serve-bench] run directory {}\n", meta.run_dir);
  }
  void server_lost(const std::string& message) override {
    fmt::print(stderr, "moesweep: error: {}\n", message);
  }
};

struct ServeBenchCli {
  TwinOptions twin;
  std::string quant = "Q4_K_S";
  std::string workloads = "prompt-cache";  // open-loop with a rate or --find-capacity
  CLI::Option* workload_option = nullptr;
  TrafficCli traffic;
  ServeBenchOptions bench;
  std::map<std::string, std::string> axis_text;  // server axes as typed ("1,2")
  std::vector<CLI::Option*> axis_options;
};

// One option per server axis (serve/server_config.hpp): -t and -c spelled as
// the sweep's settings, --parallel and --cache-ram as the server's own.
void add_axis_options(CLI::App& cmd, ServeBenchCli& o) {
  for (const ServerAxis& a : server_axes()) {
    const std::string names =
        a.sweep_setting ? find_sweep_setting(a.key)->cli_names : fmt::format("--{}", a.key);
    o.axis_options.push_back(cmd.add_option(
        names, o.axis_text[a.key], fmt::format("server axis: llama-server {}, a list", a.help)));
  }
}

// The model llama-server loads: --gguf as given, else the servable twin.
std::string model_path(ServeBenchCli& o) {
  if (!o.bench.gguf.empty()) return o.bench.gguf;
  o.bench.twin = true;
  TwinSpec spec = o.twin.spec_for(o.quant);
  make_servable(spec);
  auto progress = [](const std::string& s) { fmt::print(stderr, "[serve-bench] twin: {}\n", s); };
  return ensure_twin(spec, "", false, progress).path.string();
}

int run(ServeBenchCli& o) {
  std::map<std::string, std::string> given;
  for (const CLI::Option* opt : o.axis_options)
    if (opt->count() > 0)
      given[opt->get_lnames().front()] = o.axis_text.at(opt->get_lnames().front());
  o.bench.axes = parse_server_axes(given);
  o.bench.traffic = o.traffic.parse();
  o.bench.formats = split_list(o.traffic.formats);
  if (o.workload_option->count() == 0 && o.bench.traffic.active()) o.workloads = "open-loop";
  for (const std::string& w : split_list(o.workloads))
    o.bench.workloads.push_back(load_workload(w));
  check_serve_bench_options(o.bench);  // before the twin is built: flags, timeouts, -c fits
  // Ctrl-C: a twin's build stops (its .tmp files removed, exit 130); the
  // request in flight ends and the run is kept.
  const StopOnSignal stop;
  if (o.bench.url.empty()) o.bench.gguf = model_path(o);
  ServeBenchPrinter printer;
  return run_serve_bench(o.bench, StopOnSignal::requested, printer);
}

}  // namespace

void add_serve_bench_command(CLI::App& app, CommandRunner& run_cmd) {
  auto o = std::make_shared<ServeBenchCli>();
  CLI::App* cmd = app.add_subcommand(
      "serve-bench",
      "benchmark llama-server (started here) or a running server (--url) with workloads; "
      "llama-server flags go after --");
  o->workload_option =
      cmd->add_option("--workload,-w", o->workloads,
                      "workload(s), comma-separated: names in profiles/workloads or JSON paths "
                      "(default: open-loop with --request-rate or --find-capacity)")
          ->capture_default_str();
  cmd->add_option("--url", o->bench.url,
                  "benchmark the running server at http://HOST:PORT instead of starting one");
  add_axis_options(*cmd, *o);
  o->traffic.add_to(*cmd);
  cmd->add_option("--api", o->bench.api,
                  "auto, llama (/completion, exact prompt lengths through /tokenize), openai "
                  "(/v1/completions) or openai-chat (/v1/chat/completions); auto: llama when "
                  "the server answers /tokenize")
      ->capture_default_str();
  cmd->add_option("--gguf", o->bench.gguf, "serve this GGUF instead of a servable twin");
  o->twin.add_to(*cmd);
  cmd->add_option("--quant,-q", o->quant, "the twin's quant type")->capture_default_str();
  cmd->add_option("--server-bin", o->bench.server_bin,
                  "llama-server binary (default: $MOESWEEP_LLAMA_SERVER, else next to moesweep)");
  cmd->add_option("--ready-timeout", o->bench.ready_timeout_s,
                  "seconds to wait for the server's /health")
      ->capture_default_str();
  cmd->add_option("--request-timeout", o->bench.request_timeout_s,
                  "seconds one request may take before it is recorded as failed")
      ->capture_default_str();
  cmd->add_option("--out-dir", o->bench.out_dir, "where run directories are made")
      ->capture_default_str();
  cmd->add_option("--name", o->bench.name, "run name")->capture_default_str();
  cmd->add_option("--db", o->bench.db, "SQLite results store")->capture_default_str();
  cmd->add_flag("--no-db", o->bench.no_db, "do not write the SQLite store");
  cmd->add_option("server-args", o->bench.server_args,
                  "llama-server flags after --: -tb -b -ub -ctk -ctv -fa --mlock --no-mmap -ot "
                  "... (-t -c --parallel --cache-ram here or as axes before --, not both)");
  cmd->callback([o, &run_cmd] { run_cmd = [o] { return run(*o); }; });
}

}  // namespace moesweep::cli
