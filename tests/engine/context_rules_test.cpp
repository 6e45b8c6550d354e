// The engine's rules for a context (engine/context_rules.hpp), in the one
// place the spec, the plan and LiveContext ask: llama.cpp's -ctk/-ctv names,
// which of them are quantized, and the combinations the engine refuses.
#include <gtest/gtest.h>

#include "engine/context_rules.hpp"

namespace moesweep {
namespace {

TEST(ContextRules, CacheTypesAreLlamaCppsNames) {
  EXPECT_EQ(kv_cache_type_names(), (std::vector<std::string>{"f32", "f16", "bf16", "q8_0", "q4_0",
                                                             "q4_1", "iq4_nl", "q5_0", "q5_1"}));
  EXPECT_TRUE(is_kv_cache_type("q8_0"));
  EXPECT_FALSE(is_kv_cache_type("Q8_0"));  // the engine's spelling is lower case
  EXPECT_FALSE(is_kv_cache_type("q4_K"));  // a weight type, not a cache type
  EXPECT_FALSE(is_kv_cache_type(""));
}

TEST(ContextRules, EveryTypeButTheFloatsIsQuantized) {
  for (const std::string& t : kv_cache_type_names())
    EXPECT_EQ(is_quantized_cache(t), t != "f32" && t != "f16" && t != "bf16") << t;
}

ContextParams context(const std::string& type_v, int flash_attn, int batch = 2048,
                      int ubatch = 512) {
  ContextParams c;
  c.type_k = "q8_0";
  c.type_v = type_v;
  c.flash_attn = flash_attn;
  c.n_batch = batch;
  c.n_ubatch = ubatch;
  return c;
}

TEST(ContextRules, AQuantizedVCacheNeedsFlashAttentionOnOrAuto) {
  EXPECT_EQ(context_rule_violation(context("q8_0", 1)), "");
  EXPECT_EQ(context_rule_violation(context("q8_0", -1)), "");  // auto: the engine turns it on
  EXPECT_EQ(context_rule_violation(context("f16", 0)), "");
  EXPECT_EQ(context_rule_violation(context("q4_0", 0)),
            "-ctv q4_0 needs flash attention (-fa on or auto): the engine cannot create a "
            "quantized V cache without it");
}

TEST(ContextRules, UbatchMayNotExceedBatch) {
  EXPECT_EQ(context_rule_violation(context("f16", 0, 512, 512)), "");
  EXPECT_EQ(context_rule_violation(context("f16", 0, 256, 512)),
            "-ub 512 > -b 256: ubatch must not exceed batch");
}

}  // namespace
}  // namespace moesweep
