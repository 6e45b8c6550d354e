#pragma once
// One serve-bench run: a run directory, llama-server started and stopped
// here (or a --url server), each workload run and recorded (its table to the
// listener, requests.jsonl, summary.json, tables.md, server.log, the SQLite
// store).
#include <string>
#include <vector>

#include "results/sink.hpp"
#include "serve/open_loop_workload.hpp"
#include "serve/server_config.hpp"
#include "serve/workload.hpp"

namespace moesweep {

struct ServeBenchOptions {
  std::vector<Workload> workloads;
  std::string url;         // a running server; empty: start llama-server
  std::string gguf;        // the model llama-server loads
  bool twin = false;       // gguf is a twin: steer its output (CompletionRequest::steer_token)
  std::string server_bin;  // --server-bin
  std::vector<std::string> server_args;  // passed through after --
  ServerAxisValues axes;                 // -t -c --parallel --cache-ram: one server per combination
  std::string api = "auto";              // auto | llama | openai | openai-chat (serve_client.hpp)
  TrafficOptions traffic;                // open-loop workloads: rates, SLOs, --find-capacity
  std::vector<std::string> formats;      // --format: vllm (vLLM bench serve's result JSON)
  int ready_timeout_s = 300;
  int request_timeout_s = 300;
  std::string out_dir = "results/runs";
  std::string name = "serve";
  std::string db = "results/moesweep.sqlite";
  bool no_db = false;
};

// The llama-server argv: the pass-through flags, the configuration's axis
// values, then -c/--parallel when not given (sized for the workloads), then
// the model, loopback port and --metrics.
std::vector<std::string> llama_server_args(const ServeBenchOptions& o, const ServerConfig& config,
                                           int port);

// llama-server's slots for open-loop workloads when --parallel is not given:
// --max-concurrency up to kMaxOpenLoopSlots, else kDefaultOpenLoopSlots.
inline constexpr int kDefaultOpenLoopSlots = 4;
inline constexpr int kMaxOpenLoopSlots = 16;

// The longest --ready-timeout / --request-timeout: a week.
inline constexpr int kMaxTimeoutS = 7 * 24 * 3600;

// The options alone, before a twin is built or a server started: pass-through
// flags serve-bench sets itself, --url with flags or server axes, an axis also
// given after --, a bad --api, a timeout that is not 1 s to a week, workloads
// that do not fit the server's slots (-c / --parallel). UserError (exit 2).
void check_serve_bench_options(const ServeBenchOptions& o);

// What a run tells its caller; serve-bench's library code never prints, the
// CLI's listener does. The RunListener events: begin (meta.json "running"),
// note (each line of progress, for stderr), request (each finished request,
// the line requests.jsonl got), end on every way out with the final status
// (an error: failed, meta.json's error).
// And two of serve-bench's own: a workload's tables once it is done (for
// stdout), and the server gone during the run (the error, its log's tail).
class ServeBenchListener : public RunListener {
 public:
  virtual void workload_done(const std::string& /*tables*/) {}
  virtual void server_lost(const std::string& /*message*/) {}
};

// Exit code: 0, 3 (requests failed or the server ended), 130 (interrupted).
int run_serve_bench(const ServeBenchOptions& o, bool (*interrupted)(),
                    ServeBenchListener& listener);

}  // namespace moesweep
