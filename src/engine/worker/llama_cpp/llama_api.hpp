#pragma once
// The one interface the worker's mainline code calls for every llama.cpp API
// that changed spelling between b3889 (October 2024) and v0.5.0: each
// function has one #if branch per variant of cmake/EngineApi.cmake's table,
// chosen at configure time against the engine's own llama.h. The rest of the
// worker calls only these (and the calls every release spells alike:
// llama_decode, llama_batch_*, llama_model_quantize, the backend registry).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "llama.h"

namespace moesweep::worker::api {

// "model_load=model_load_from_file,kv_cache=memory,...": what this worker was built against.
const char* variants();

llama_model* load_model(const std::string& path, const llama_model_params& params);
void free_model(llama_model* model);
llama_context* new_context(llama_model* model, const llama_context_params& params);

// Removes positions [p0, end) of sequence 0; false when the cache cannot.
bool seq_rm(llama_context* ctx, int p0);
// The last position of sequence 0 (-1 when empty).
int seq_pos_max(llama_context* ctx);

int n_vocab(const llama_model* model);
int n_layer(const llama_model* model);
int n_ctx_train(const llama_model* model);

// -ngl: -1 (every layer) is the engine's own default from b8352 (npm 3.18.0);
// before, a negative count overran the loader's layer table (a heap overflow
// in llm_load_tensors of b3889), so there every layer is 999, as llama-bench
// of those releases wrote it. Told at run time by the engine's own default.
void set_gpu_layers(llama_model_params& params, int n_gpu_layers);

// -fa: -1 auto, 0 off, 1 on. Engines with a bool have no auto: it keeps their default.
void set_flash_attn(llama_context_params& params, int mode);
const char* flash_attn_name(const llama_context_params& params);

// --load-mode (auto, none, mmap, mlock, mmap+mlock, dio; names checked by the spec).
// UserError for a mode this engine has no way to apply (dio before load_mode existed).
void set_load_mode(llama_model_params& params, const std::string& mode);

// -ot and --n-cpu-moe: tensors whose name matches `pattern` go to `buft`.
struct TensorOverride {
  std::string pattern;
  ggml_backend_buffer_type_t buft = nullptr;
};
// Points `params` at `overrides`; the returned holder must outlive the load.
// UserError when this engine has no tensor buffer overrides (before b5590).
std::shared_ptr<void> set_tensor_overrides(llama_model_params& params,
                                           const std::vector<TensorOverride>& overrides);

// The quantizer's dequantization slab, where the engine has one (a no-op before).
void set_quantize_buffer(llama_model_quantize_params& params, size_t bytes);

// Dynamic backends from the package's folder, where the engine loads them (b4435 on):
// ggml's own choice (the best-scoring CPU variant for this CPU) or, `without_amx`,
// the best variant that does not use AMX.
void load_backends(const std::string& dir, bool without_amx);

// The CPU backend's features ("AVX2", "AVX512=1"...), empty where the engine cannot say.
std::vector<std::string> cpu_features(ggml_backend_reg_t cpu);

}  // namespace moesweep::worker::api
