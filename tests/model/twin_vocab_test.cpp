// Servable twins: the family's tokenizer from the engine tree's vocab files,
// a vocabulary of the tokenizer's size, and a cache key of their own while
// every other twin keeps its key.
#include <gtest/gtest.h>

#include "gguf.h"
#include "model/twin_spec.hpp"
#include "model/twin_vocab.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(TwinVocab, FamiliesMapToTheEnginesVocabFiles) {
  EXPECT_EQ(tokenizer_for_arch("deepseek2"), "deepseek-llm");
  EXPECT_EQ(tokenizer_for_arch("llama4"), "llama-bpe");
  EXPECT_EQ(tokenizer_for_arch("qwen3moe"), "qwen2");
  EXPECT_THROW(tokenizer_for_arch("mamba"), UserError);
}

TEST(TwinVocab, AServableTwinHasTheTokenizersVocabularyAndItsOwnCacheKey) {
  const TwinSpec plain = twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_K_S", 42);
  TwinSpec servable = plain;
  make_servable(servable);
  EXPECT_EQ(servable.tokenizer, "deepseek-llm");
  EXPECT_FALSE(plain.to_json().contains("tokenizer"));  // other twins' keys stay as they were
  EXPECT_NE(servable.cache_key(), plain.cache_key());
  gguf_context* meta = make_twin_metadata(servable);
  const int64_t tokens = gguf_find_key(meta, "tokenizer.ggml.tokens");
  ASSERT_GE(tokens, 0);
  EXPECT_EQ(static_cast<int64_t>(gguf_get_arr_n(meta, tokens)), servable.profile.shape.vocab);
  EXPECT_STRNE(gguf_get_val_str(meta, gguf_find_key(meta, "tokenizer.ggml.model")), "no_vocab");
  EXPECT_EQ(gguf_get_val_u32(meta, gguf_find_key(meta, "deepseek2.vocab_size")),
            servable.profile.shape.vocab);
  gguf_free(meta);
}

}  // namespace
}  // namespace moesweep
