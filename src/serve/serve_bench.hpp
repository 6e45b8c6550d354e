#pragma once
// One serve-bench run: a run directory, llama-server started and stopped
// here (or a --url server), each workload run and recorded (table printed,
// requests.jsonl, summary.json, tables.md, server.log, the SQLite store).
#include <string>
#include <vector>

#include "serve/workload.hpp"

namespace moesweep {

struct ServeBenchOptions {
  std::vector<Workload> workloads;
  std::string url;         // a running server; empty: start llama-server
  std::string gguf;        // the model llama-server loads
  bool twin = false;       // gguf is a twin: steer its output (CompletionRequest::steer_token)
  std::string server_bin;  // --server-bin
  std::vector<std::string> server_args;  // passed through after --
  int ready_timeout_s = 300;
  int request_timeout_s = 300;
  std::string out_dir = "results/runs";
  std::string name = "serve";
  std::string db = "results/moesweep.sqlite";
  bool no_db = false;
};

// The llama-server argv: the pass-through flags, then -c/--parallel when not
// given (sized for the workloads), then the model, loopback port and --metrics.
std::vector<std::string> llama_server_args(const ServeBenchOptions& o, int port);

// Exit code: 0, 3 (requests failed or the server ended), 130 (interrupted).
int run_serve_bench(const ServeBenchOptions& o, bool (*interrupted)());

}  // namespace moesweep
