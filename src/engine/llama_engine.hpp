#pragma once
// The in-process engine adapter: the only code in moesweep that calls the
// llama.cpp context API. A LoadedModel is loaded once per model-level key; a
// LiveContext once per context-level key; threads are switched on the live
// context (threadpools attached, no rebuild) as the methodology requires.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct llama_model;
struct llama_context;
struct ggml_threadpool;

namespace moesweep {

class RoutingObserver;  // engine/routing_observer.hpp

// A failure of the engine on one point (not the user's input as such): the
// sweep records it and goes on.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelLoadParams {
  std::string path;
  std::string load_mode = "auto";  // llama_load_mode_from_str's names
  int n_gpu_layers = -1;
  std::vector<std::string> tensor_overrides;  // "regex=BUFT"
  int n_cpu_moe = 0;                          // experts of the first N layers on CPU
  std::string numa = "disabled";
};

struct ModelFacts {
  std::string path, description, arch, file_type;
  uint64_t size_bytes = 0, n_params = 0;
  int n_layer = 0, n_vocab = 0, n_ctx_train = 0;
};

class LoadedModel {
 public:
  explicit LoadedModel(const ModelLoadParams& params);  // throws UserError / EngineError
  ~LoadedModel();
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;
  llama_model* get() const { return model_; }
  const ModelFacts& facts() const { return facts_; }

 private:
  llama_model* model_ = nullptr;
  ModelFacts facts_;
  std::vector<std::string> override_patterns_;  // must outlive the load call
};

struct ContextParams {
  int n_ctx = 4096, n_batch = 2048, n_ubatch = 512;
  std::string type_k = "f16", type_v = "f16";
  int flash_attn = -1;  // llama_flash_attn_type: -1 auto, 0 off, 1 on
};

struct ThreadSettings {
  int n_threads = 1, n_threads_batch = 1;
  std::string cpu_mask;  // "" | hex "0xff" | list "0-7,16"
  bool strict = false;
  int poll = 50;
};

class LiveContext {
 public:
  // Checks the combination first (e.g. quantized V needs flash attention),
  // then creates the context. The caller checks the KV cache's size against
  // free memory first (check_kv_fits_memory): its size needs the model's
  // attention shape (MLA or not), which src/model knows.
  // `routing` (optional, must outlive the context) sees every MoE layer's
  // selected experts (routing traces); without it the graph runs unobserved.
  LiveContext(const LoadedModel& model, const ContextParams& params,
              RoutingObserver* routing = nullptr);
  ~LiveContext();
  LiveContext(const LiveContext&) = delete;
  LiveContext& operator=(const LiveContext&) = delete;

  // New threadpools with these settings, attached to the live context.
  void set_threads(const ThreadSettings& threads);
  // Decodes `tokens` at positions pos0.. in chunks of n_batch; seconds spent.
  double prefill(const std::vector<int32_t>& tokens, int pos0);
  // Decodes tokens one at a time (a generation step each); seconds spent.
  double generate(const std::vector<int32_t>& tokens, int pos0);
  // Drops every cached position >= n_kv (rewind after a timed phase).
  void rewind_to(int n_kv);
  // Number of tokens in the cache (max position + 1).
  int cached_tokens() const;
  int n_ctx() const;

 private:
  void decode_or_throw(void* batch, const char* what);
  // Decodes `tokens` in chunks of `chunk` (1 = one generation step each).
  double decode_timed(const std::vector<int32_t>& tokens, int pos0, size_t chunk, const char* what);
  const LoadedModel& model_;
  ContextParams params_;
  llama_context* ctx_ = nullptr;
  ggml_threadpool* pool_ = nullptr;
  ggml_threadpool* pool_batch_ = nullptr;
  RoutingObserver* routing_ = nullptr;
};

// Throws EngineError when a KV cache of `kv_bytes` would not fit in MemAvailable.
void check_kv_fits_memory(uint64_t kv_bytes, const ContextParams& params);
uint64_t available_memory_bytes();                                      // MemAvailable
int parse_ggml_type(const std::string& name, const std::string& flag);  // ggml_type
// "0x0f" or "0-3,8" -> mask; false on syntax error
bool parse_cpu_mask(const std::string& text, std::vector<bool>& mask);

}  // namespace moesweep
