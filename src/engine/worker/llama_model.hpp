#pragma once
// The worker's side of the engine: the llama.h code. A Model is loaded once
// per model-level key; a Context once per context-level key; threads are
// switched on the live context (threadpools attached, no rebuild), as the
// methodology requires. Only the worker binary links this.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine_types.hpp"
#include "engine/routing_observer.hpp"

struct llama_model;
struct llama_context;
struct ggml_threadpool;

namespace moesweep::worker {

// A ggml tensor type by the engine's own name (-ctk/-ctv's "q8_0"), as its
// int value; UserError naming `flag` for an unknown name.
int ggml_type_from_name(const std::string& name, const std::string& flag);

// UserError when `k` sets a switch this worker's engine does not have.
void refuse_knobs(const EngineKnobs& k);

class Model {
 public:
  explicit Model(const ModelLoadParams& params);  // throws UserError / EngineError
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  llama_model* get() const { return model_; }
  const ModelFacts& facts() const { return facts_; }

 private:
  llama_model* model_ = nullptr;
  ModelFacts facts_;
};

class Context {
 public:
  // Checks the combination first (e.g. quantized V needs flash attention),
  // then creates the context. `routing` (optional, must outlive the context)
  // sees every MoE layer's selected experts.
  Context(const Model& model, const ContextParams& params, RoutingObserver* routing = nullptr);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void set_threads(const ThreadSettings& threads);
  // What one decode call measured.
  struct Timing {
    double seconds = 0;
    std::vector<int64_t> token_ns;  // each generated token's time (token_times, chunk 1)
    uint64_t inputs_hash = 0;       // FNV-1a 64 of the (token, position) pairs batched
  };
  // Decodes `tokens` at positions pos0.. in chunks of `chunk` (1 = one
  // generation step each, logits for every token); the seconds it took,
  // and with `token_times` each generation step's nanoseconds.
  Timing decode(const std::vector<int32_t>& tokens, int pos0, int chunk, bool token_times);
  void rewind_to(int n_kv);
  int cached_tokens() const;
  // What the engine holds now (its echo of the settings it was given).
  int n_ctx() const;
  int n_batch() const;
  int n_ubatch() const;
  int n_threads() const;
  int n_threads_batch() const;

 private:
  void decode_or_throw(void* batch, const char* what);
  // MOESWEEP_PLANTED_TG_DELAY_US / _SLOWDOWN_PCT builds only (the gate's tests)
  void spin_planted_delay(double token_seconds);
  const Model& model_;
  ContextParams params_;
  llama_context* ctx_ = nullptr;
  ggml_threadpool* pool_ = nullptr;
  ggml_threadpool* pool_batch_ = nullptr;
  // Threadpools replaced by a thread switch, freed with the context: ggml's CPU
  // backend keeps the last pool it computed with and pauses it when the next
  // one arrives, so freeing it at the switch was a use after free (b4234
  // aborted in glibc's mutex code, b4435 hung; newer releases got away with it).
  std::vector<ggml_threadpool*> retired_pools_;
  RoutingObserver* routing_ = nullptr;
};

}  // namespace moesweep::worker
