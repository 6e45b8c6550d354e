#include "model/kv_cache.hpp"

#include <algorithm>

#include "model/gguf_inspect.hpp"
#include "model/model_profile.hpp"

namespace moesweep {

KvShape kv_shape_of(const GgufInspection& m) {
  KvShape s;
  s.n_layer = m.n_layer;
  s.n_head_kv = m.n_head_kv;
  s.key_length = m.key_length;
  s.value_length = m.value_length;
  s.mla = m.mla;
  s.kv_lora_rank = m.kv_lora_rank;
  s.rope_dim = m.rope_dim;
  return s;
}

KvShape kv_shape_of(const ModelShape& m) {
  KvShape s;
  s.n_layer = m.layers;
  s.n_head_kv = {m.kv_heads};
  s.key_length = m.head_dim;
  s.value_length = m.head_dim;
  s.mla = m.is_mla();
  s.kv_lora_rank = m.kv_lora_rank;
  s.rope_dim = m.qk_rope_head_dim;
  return s;
}

uint64_t kv_bytes_per_token(const KvShape& s, ggml_type type_k, ggml_type type_v) {
  if (s.mla)
    return static_cast<uint64_t>(s.n_layer) * ggml_row_size(type_k, s.kv_lora_rank + s.rope_dim);
  uint64_t total = 0;
  for (int64_t il = 0; il < s.n_layer && !s.n_head_kv.empty(); ++il) {
    const int64_t heads = s.n_head_kv[std::min<size_t>(il, s.n_head_kv.size() - 1)];
    total +=
        ggml_row_size(type_k, heads * s.key_length) + ggml_row_size(type_v, heads * s.value_length);
  }
  return total;
}

uint64_t kv_cache_bytes(const KvShape& s, const ContextParams& c) {
  return static_cast<uint64_t>(c.n_ctx) *
         kv_bytes_per_token(s, parse_cache_type(c.type_k), parse_cache_type(c.type_v));
}

}  // namespace moesweep
