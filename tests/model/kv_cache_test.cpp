// KV bytes per token, computed by hand for a plain GQA shape and an MLA
// (deepseek2) shape: the one formula inspect, predict, the roofline and the
// sweep's memory pre-check share.
#include "model/kv_cache.hpp"

#include <gtest/gtest.h>

#include "model/model_profile.hpp"

namespace moesweep {
namespace {

KvShape gqa(std::vector<int64_t> heads) {
  KvShape s;
  s.n_layer = 2;
  s.n_head_kv = std::move(heads);
  s.key_length = 128;
  s.value_length = 128;
  return s;
}

KvShape deepseek2_mla() {
  KvShape s;
  s.n_layer = 3;
  s.n_head_kv = {1};
  s.key_length = 576;  // what the GGUF announces: latent + rope
  s.value_length = 512;
  s.mla = true;
  s.kv_lora_rank = 512;
  s.rope_dim = 64;
  return s;
}

TEST(KvBytesPerToken, GqaCachesKAndVForEveryKvHead) {
  // 2 layers x (8 heads x 128 x 2 B for K + the same for V) = 2 x 4096.
  EXPECT_EQ(kv_bytes_per_token(gqa({8}), GGML_TYPE_F16, GGML_TYPE_F16), 8192u);
  // q8_0 K: 1024 values = 32 blocks x 34 B = 1088; f16 V 2048; 2 layers.
  EXPECT_EQ(kv_bytes_per_token(gqa({8}), GGML_TYPE_Q8_0, GGML_TYPE_F16), 2u * (1088 + 2048));
  // Heads per layer may differ: 4 heads (2048 B) then 8 heads (4096 B).
  EXPECT_EQ(kv_bytes_per_token(gqa({4, 8}), GGML_TYPE_F16, GGML_TYPE_F16), 2048u + 4096u);
}

TEST(KvBytesPerToken, MlaCachesOneLatentRowAndNoV) {
  // 3 layers x (512 + 64) x 2 B; the V type plays no part.
  EXPECT_EQ(kv_bytes_per_token(deepseek2_mla(), GGML_TYPE_F16, GGML_TYPE_F16), 3u * 1152);
  EXPECT_EQ(kv_bytes_per_token(deepseek2_mla(), GGML_TYPE_F16, GGML_TYPE_Q8_0), 3u * 1152);
  // q8_0: 576 values = 18 blocks x 34 B.
  EXPECT_EQ(kv_bytes_per_token(deepseek2_mla(), GGML_TYPE_Q8_0, GGML_TYPE_Q8_0), 3u * 612);
  // Read as GQA (K and V rows of the announced lengths) it would be 6528 B.
  KvShape as_gqa = deepseek2_mla();
  as_gqa.mla = false;
  EXPECT_EQ(kv_bytes_per_token(as_gqa, GGML_TYPE_F16, GGML_TYPE_F16), 3u * (576 + 512) * 2);
}

TEST(KvBytesPerToken, ProfileShapesGiveTheSameArithmetic) {
  ModelShape gqa_shape;
  gqa_shape.layers = 4;
  gqa_shape.kv_heads = 4;
  gqa_shape.head_dim = 64;
  // 4 layers x 2 (K, V) x 4 heads x 64 x 2 B.
  EXPECT_EQ(kv_bytes_per_token(kv_shape_of(gqa_shape), GGML_TYPE_F16, GGML_TYPE_F16), 4096u);
  ModelShape mla_shape;
  mla_shape.layers = 2;
  mla_shape.heads = 16;
  mla_shape.kv_lora_rank = 512;
  mla_shape.qk_rope_head_dim = 64;
  EXPECT_EQ(kv_bytes_per_token(kv_shape_of(mla_shape), GGML_TYPE_F16, GGML_TYPE_F16), 2u * 1152);
}

TEST(KvCacheBytes, IsContextLengthTimesBytesPerTokenAtItsCacheTypes) {
  ContextParams c;
  c.n_ctx = 1000;
  c.type_k = "q8_0";
  c.type_v = "f16";
  EXPECT_EQ(kv_cache_bytes(gqa({8}), c), 1000u * 2 * (1088 + 2048));
  // The memory pre-check of an MLA model: the latent rows only (q8_0: 612 B a layer).
  EXPECT_EQ(kv_cache_bytes(deepseek2_mla(), c), 1000u * 3 * 612);
}

}  // namespace
}  // namespace moesweep
