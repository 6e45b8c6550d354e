#pragma once
// The plain values that cross the engine boundary: what to load, which
// context, which threads, what the engine says about a model and about
// itself. Both sides of the worker pipe use them (src/engine/worker holds the
// llama.h side), so nothing here names an engine type.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/engine_knobs.hpp"
#include "util/error.hpp"

namespace moesweep {

// A failure of the engine on one point (not the user's input as such): the
// sweep records it and goes on.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The engine's process died or hung (signal, abort, assert, OOM kill, no
// answer within the deadline). It takes the model and its contexts with it:
// the caller restarts the worker and reloads before going on.
class EngineCrash : public EngineError {
 public:
  EngineCrash(const std::string& what, std::string how, std::vector<std::string> log_tail)
      : EngineError(what), how_(std::move(how)), log_tail_(std::move(log_tail)) {}
  // "SIGABRT", "exit 3", "hung": how the worker ended.
  const std::string& how() const { return how_; }
  // The last lines the engine wrote to its log before it ended.
  const std::vector<std::string>& log_tail() const { return log_tail_; }

 private:
  std::string how_;
  std::vector<std::string> log_tail_;
};

// How long one engine call of a point may take by default (sweep
// --point-timeout): past it the engine counts as hung.
inline constexpr double kDefaultPointTimeoutS = 1800;

// The user's stop (Ctrl-C, SIGTERM: util/stop_signal.hpp) ended a call to an
// engine worker that was still waiting: the worker is killed, the point in
// progress stays unmeasured (for --resume), and the run ends `interrupted`
// (exit 130). Not the engine's failure: no point is failed for it.
class WorkerInterrupted : public UserError {
 public:
  struct Problem {
    std::string text;  // the whole sentence, for a stop outside the worker (a co-tenant's start)
  };
  explicit WorkerInterrupted(const std::string& during)
      : WorkerInterrupted(Problem{"interrupted during the engine worker's " + during}) {}
  explicit WorkerInterrupted(const Problem& problem)
      : UserError(problem.text, "", "", exit_code::kInterrupted) {}
};

// The worker answered a request with "kind":"input": this engine build will
// not do what was asked (a setting, a size). Refused at the model's load it
// is the user's to fix (exit 2); refused in the middle of a point it fails
// that point, and the sweep goes on.
class WorkerRefusal : public UserError {
 public:
  using UserError::UserError;
};

struct ModelLoadParams {
  std::string path;
  std::string load_mode = "auto";  // llama_load_mode_from_str's names
  int n_gpu_layers = -1;
  std::vector<std::string> tensor_overrides;  // "regex=BUFT"
  int n_cpu_moe = 0;                          // experts of the first N layers on CPU
  std::string numa = "disabled";
  EngineKnobs knobs;  // ik_llama.cpp only: -rtr, -mla, -amb act at load
};

struct ModelFacts {
  std::string path, description, arch, file_type;
  uint64_t size_bytes = 0, n_params = 0;
  int n_layer = 0, n_vocab = 0, n_ctx_train = 0;
};

struct ContextParams {
  int n_ctx = 4096, n_batch = 2048, n_ubatch = 512;
  std::string type_k = "f16", type_v = "f16";
  int flash_attn = -1;  // llama_flash_attn_type: -1 auto, 0 off, 1 on
  EngineKnobs knobs;    // ik_llama.cpp only: -fmoe, -mla, -amb act on the context
};

struct ThreadSettings {
  int n_threads = 1, n_threads_batch = 1;
  std::string cpu_mask;  // "" | hex "0xff" | list "0-7,16"
  bool strict = false;
  int poll = 50;
};

// What an engine build says about itself (the worker's hello): what every
// record names as its engine.
struct EngineFacts {
  int protocol = 0;         // the worker protocol it speaks
  std::string kind;         // "llama.cpp"
  std::string release;      // e.g. v0.4.0
  std::string commit;       // git commit of the engine source
  std::string build;        // "source GGML_NATIVE", "prebuilt", ...
  std::string cpu_variant;  // the CPU backend loaded: haswell, zen4, ... ("native" when built in)
  std::string library;      // the libllama file in use ("" when linked statically)
  std::vector<std::string> cpu_features;  // what the loaded CPU backend was compiled for
  std::string system_info;                // llama_print_system_info()
  std::string worker;                     // path of the worker binary
  // Which spelling of each changed llama.cpp API the worker was built against
  // (cmake/EngineApi.cmake: "kv_cache=memory,flash_attn=type_enum,..."); "" for ik_llama.cpp.
  std::string api;
  // What GGUF files its loader reads: architectures and layouts
  // (deepseek2, deepseek2.v3_router, deepseek2.split_mla, qwen3moe, llama4).
  std::vector<std::string> reads;
  int max_experts =
      0;  // routed experts per layer its loader accepts (LLAMA_MAX_EXPERTS); 0 unknown
};

// The engine's expert kernel over a pool of experts (worker/expert_gemv.hpp):
// the kernel-level side of the L3 question.
struct ExpertGemvShape {
  std::string type = "q8_0";  // ggml type name; q8_0 takes ggml's chunked (not repacked) path
  int64_t hidden = 2048;      // GEMV input width
  int64_t rows = 512;         // rows of one expert matrix
  int used = 8;               // experts per token per layer
  int layers = 4;             // mul_mat_id nodes per graph, amortising graph launch
};

struct ExpertGemvPoint {
  uint64_t pool_bytes = 0;
  uint64_t expert_bytes = 0;
  int threads = 1;
  double gbps = 0;  // expert bytes read per second, best of the repeats
  double tokens_per_s = 0;
};

}  // namespace moesweep
