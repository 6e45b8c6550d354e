#pragma once
// The KV cache's size, from a model's attention shape: the one formula that
// inspect, predict, the roofline and the sweep's memory pre-check all use.
#include <cstdint>
#include <vector>

#include "engine/engine_types.hpp"
#include "ggml.h"

namespace moesweep {

struct GgufInspection;
struct ModelShape;

struct KvShape {
  int64_t n_layer = 0;
  std::vector<int64_t> n_head_kv;  // per layer; the last entry repeats for the rest
  int64_t key_length = 0, value_length = 0;
  // MLA (deepseek2): the engine caches one compressed latent row plus the rope
  // part per token and layer, and no V.
  bool mla = false;
  int64_t kv_lora_rank = 0, rope_dim = 0;
};

KvShape kv_shape_of(const GgufInspection& m);
KvShape kv_shape_of(const ModelShape& s);

// KV bytes one token adds to (and decode reads back from) the cache, all layers.
uint64_t kv_bytes_per_token(const KvShape& s, ggml_type type_k, ggml_type type_v);
// The whole cache of a context: n_ctx tokens at its K and V types.
uint64_t kv_cache_bytes(const KvShape& s, const ContextParams& context);

}  // namespace moesweep
