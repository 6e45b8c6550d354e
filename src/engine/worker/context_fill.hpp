#pragma once
// The context settings both engine kinds' llama_context_params spell alike
// (sizes and KV types); each kind's Context sets the rest (flash attention,
// threads, its own switches).
#include <cstdint>

#include "engine/engine_types.hpp"
#include "engine/worker/llama_model.hpp"
#include "ggml.h"

namespace moesweep::worker {

template <typename LlamaContextParams>
void fill_context_sizes(LlamaContextParams& cp, const ContextParams& p) {
  cp.n_ctx = static_cast<uint32_t>(p.n_ctx);
  cp.n_batch = static_cast<uint32_t>(p.n_batch);
  cp.n_ubatch = static_cast<uint32_t>(p.n_ubatch);
  cp.n_seq_max = 1;
  cp.type_k = static_cast<ggml_type>(ggml_type_from_name(p.type_k, "-ctk"));
  cp.type_v = static_cast<ggml_type>(ggml_type_from_name(p.type_v, "-ctv"));
}

}  // namespace moesweep::worker
