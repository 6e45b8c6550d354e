#pragma once
// The engine as moesweep sees it: a worker process (src/engine/worker, one
// binary per engine build) that holds the model and its contexts and does all
// the timing itself. LoadedModel is one worker with one model loaded;
// LiveContext a context inside it. Their methods are the in-process ones of
// old (set_threads, prefill, generate, rewind_to, cached_tokens), so the KV
// walk and the trace do not know a pipe is in between. An engine that
// crashes, aborts or hangs throws EngineCrash: the caller fails the point,
// restarts the worker (LoadedModel::restart) and goes on.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/applied_settings.hpp"
#include "engine/engine_types.hpp"

namespace moesweep {

class RoutingObserver;  // engine/routing_observer.hpp
class EngineWorker;     // engine/engine_worker.hpp

// The worker binary used when none is named: $MOESWEEP_WORKER, else
// moesweep-worker beside the running executable.
std::filesystem::path default_worker_path();

// What the engine build behind `worker` says about itself (started once per
// process and path, then cached). UserError when it is not a worker of our
// protocol version.
const EngineFacts& engine_facts(const std::filesystem::path& worker = default_worker_path());

// What bounds every call to one model's worker: the deadline of loading the
// model, creating a context and each call of a point (--point-timeout; <= 0:
// none), and the stop flag looked at while a call waits (null: the process's
// Ctrl-C flag, util/stop_signal.hpp).
struct WorkerLimits {
  double timeout_s = kDefaultPointTimeoutS;
  const std::atomic<bool>* stop = nullptr;
};

class LoadedModel {
 public:
  // Starts a worker and loads the model in it. Throws UserError for a file
  // the user must fix, EngineError / EngineCrash for an engine failure (a
  // worker that says it loaded another file than `params.path` among them),
  // WorkerInterrupted when the stop flag ended the load.
  explicit LoadedModel(const ModelLoadParams& params,
                       const std::filesystem::path& worker = default_worker_path(),
                       const WorkerLimits& limits = {});
  ~LoadedModel();
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  const ModelFacts& facts() const { return facts_; }
  const EngineFacts& engine() const;
  int pid() const;  // the worker's process id: counters attach to it
  // The engine's INFO log of the load (its model buffer sizes:
  // engine/engine_memory.hpp reads them).
  const std::string& load_log() const { return load_log_; }
  // A new worker with the model loaded again, after a crash; every context of
  // the old worker is gone.
  void restart();
  // Whether its worker still runs (a request it failed or missed ended it).
  bool running() const;
  // The one way every request of this model reaches its worker (its
  // contexts', their frees, before and after a restart): under the model's
  // deadline, WorkerLimits::timeout_s (--point-timeout), and its stop flag.
  nlohmann::json request(const nlohmann::json& req,
                         const std::function<void(const nlohmann::json&)>& events = {}) const;
  int generation() const { return generation_; }
  const WorkerLimits& limits() const { return limits_; }

 private:
  void start();
  ModelLoadParams params_;
  std::filesystem::path worker_path_;
  WorkerLimits limits_;
  std::unique_ptr<EngineWorker> worker_;
  ModelFacts facts_;
  std::string load_log_;
  int generation_ = 0;
};

// How one generation call is made (sweep's TG samples, --trace-routing's
// passes).
struct DecodeOptions {
  bool token_times = false;  // each generated token's time
  bool routing = true;       // on a traced context: the tap records this call
};

// What one generation call measured.
struct DecodeResult {
  double seconds = 0;
  std::vector<int64_t> token_ns;  // each token's nanoseconds (token_times), in order
  std::string inputs;             // the worker's hash of the (token, position) pairs it decoded
};

class LiveContext {
 public:
  // `routing` (optional, must outlive the context) sees every MoE layer's
  // selected experts of each decode, after the decode (outside its timing).
  // Created, and every later call made, within the model's deadline
  // (WorkerLimits::timeout_s): LoadedModel::request.
  LiveContext(const LoadedModel& model, const ContextParams& params,
              RoutingObserver* routing = nullptr);
  ~LiveContext();
  LiveContext(const LiveContext&) = delete;
  LiveContext& operator=(const LiveContext&) = delete;

  // New threadpools with these settings, attached to the live context; what
  // the engine holds afterwards.
  AppliedThreads set_threads(const ThreadSettings& threads);
  // Decodes `tokens` at positions pos0.. in chunks of n_batch; seconds spent.
  // EngineError when the worker's time is impossible (engine/timing_bounds.hpp).
  double prefill(const std::vector<int32_t>& tokens, int pos0);
  // Decodes tokens one at a time (a generation step each); seconds spent.
  double generate(const std::vector<int32_t>& tokens, int pos0);
  // The same, as `options` ask; EngineError when the worker's token times are
  // not one per token or add up to more than the call's seconds.
  DecodeResult generate(const std::vector<int32_t>& tokens, int pos0, const DecodeOptions& options);
  // Drops every cached position >= n_kv (rewind after a timed phase).
  void rewind_to(int n_kv);
  // Number of tokens in the cache (max position + 1).
  int cached_tokens() const;
  int n_ctx() const { return applied_.n_ctx; }
  // The settings asked for (ik_llama.cpp's switches included).
  const ContextParams& params() const { return params_; }
  // What the engine made of them (engine/applied_settings.hpp).
  const AppliedContext& applied() const { return applied_; }
  // The engine's INFO log of creating this context (KV and compute buffers).
  const std::string& creation_log() const { return creation_log_; }
  // The engine worker's process (counters attach to its threads).
  int pid() const { return model_.pid(); }

 private:
  DecodeResult decode(const std::vector<int32_t>& tokens, int pos0, int chunk,
                      const DecodeOptions& options);
  const LoadedModel& model_;
  ContextParams params_;
  RoutingObserver* routing_ = nullptr;
  int id_ = 0;
  int generation_ = 0;
  AppliedContext applied_;
  std::string creation_log_;
};

// Quantizes the GGUF `in` to `out` (llama_model_quantize with
// allow_requantize) in a worker; returns the engine's warnings. UserError when
// the engine refuses.
std::string quantize_in_worker(const std::string& in, const std::string& out, int ftype,
                               int n_threads,
                               const std::filesystem::path& worker = default_worker_path());

// The engine's expert kernel (ggml_mul_mat_id over a pool of experts) timed in
// one worker of this engine build, so the kernel measured is the engine's own
// CPU variant.
class ExpertGemvProbe {
 public:
  explicit ExpertGemvProbe(const std::filesystem::path& worker = default_worker_path());
  ~ExpertGemvProbe();
  ExpertGemvPoint measure(const ExpertGemvShape& shape, int64_t experts, int threads,
                          double seconds);

 private:
  std::unique_ptr<EngineWorker> worker_;
};

}  // namespace moesweep
