// Twins in the layout each engine reads (issue 43): the newest layout every
// engine of a sweep loads, the engines that cannot load a twin at all named
// with the reason, and a legacy twin written as older converters wrote it and
// loaded by this build's engine (newer engines still load that layout).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/engine.hpp"
#include "model/gguf_inspect.hpp"
#include "model/model_profile.hpp"
#include "model/twin_builder.hpp"
#include "model/twin_layout.hpp"
#include "model/twin_spec.hpp"
#include "support/engine_fixtures.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// What the engines of three API eras read, as their workers report it.
const EngineReads kB3889{"r311", "b3889", {"deepseek2"}, true, 160};
const EngineReads kB4980{"r370", "b4980", {"deepseek2", "deepseek2.v3_router"}, true, 256};
// b5640 reads the split layout but still demands rope.scaling.yarn_log_multiplier.
const EngineReads kB5640{"r3100",
                         "b5640",
                         {"deepseek2", "deepseek2.v3_router", "deepseek2.split_mla",
                          "deepseek2.requires_yarn_log_mul", "qwen3moe", "llama4"},
                         true,
                         256};
const EngineReads kV040{
    "v040",
    "v0.4.0",
    {"deepseek2", "deepseek2.v3_router", "deepseek2.split_mla", "qwen3moe", "llama4"},
    true,
    1024};

ModelProfile tiny(const std::string& name) {
  return scale_profile(load_model_profile(name), "tiny", {});
}

TEST(TwinLayout, TheNewestEveryEngineReads) {
  const ModelProfile kimi = tiny("kimi-k2.5");
  EXPECT_TRUE(layout_for(kimi, {kV040}).is_newest());
  const TwinLayout middle = layout_for(kimi, {kV040, kB4980});
  EXPECT_FALSE(middle.mla_split);
  EXPECT_TRUE(middle.v3_router);
  const TwinLayout oldest = layout_for(kimi, {kV040, kB4980, kB3889});
  EXPECT_FALSE(oldest.mla_split);
  EXPECT_FALSE(oldest.v3_router);
  EXPECT_EQ(oldest.describe(), "legacy attn_kv_b MLA, V2 softmax router");
  // An engine that cannot say (another program's binary) constrains nothing.
  EXPECT_TRUE(layout_for(kimi, {kV040, {"exec", "", {}, false, 0}}).is_newest());
  // Architectures without those layouts take the newest whatever the engines.
  EXPECT_TRUE(layout_for(tiny("qwen3-moe"), {kB3889}).is_newest());
}

TEST(TwinLayout, AnEngineThatDemandsTheYarnKeyGetsItInTheSplitLayout) {
  const ModelProfile kimi = tiny("kimi-k2.5");
  const TwinLayout split_with_key = layout_for(kimi, {kV040, kB5640});
  EXPECT_TRUE(split_with_key.mla_split);
  EXPECT_TRUE(split_with_key.yarn_log_key);
  EXPECT_FALSE(split_with_key.is_newest());
  EXPECT_EQ(split_with_key.describe(), "rope.scaling.yarn_log_multiplier");
  // The legacy layout carries the key anyway.
  EXPECT_FALSE(layout_for(kimi, {kB5640, kB3889}).yarn_log_key);
  const TwinSpec spec = twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_K_S", 42);
  EXPECT_NE(with_layout(spec, split_with_key).cache_key(), spec.cache_key());
}

TEST(TwinLayout, AnEngineThatCannotLoadATwinIsNamedWithTheReason) {
  const std::string arch = cannot_load_reason(tiny("qwen3-moe"), kB4980);
  EXPECT_NE(arch.find("r370 (llama.cpp b4980) does not load architecture qwen3moe"),
            std::string::npos)
      << arch;
  EXPECT_NE(arch.find("3.9.0"), std::string::npos) << arch;
  const std::string experts = cannot_load_reason(tiny("kimi-k2.5"), kB3889);
  EXPECT_NE(experts.find("at most 160 routed experts"), std::string::npos) << experts;
  EXPECT_NE(experts.find("--experts 160"), std::string::npos) << experts;
  EXPECT_EQ(cannot_load_reason(tiny("kimi-k2.5"), kV040), "");
}

TEST(TwinLayout, ARoutingSkewNeedsTheV3RoutersBias) {
  TwinSpec skewed = twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_K_S", 42, 1.5);
  TwinLayout v2;
  v2.v3_router = false;
  EXPECT_THROW((void)with_layout(skewed, v2), UserError);
  TwinLayout split_only;
  split_only.mla_split = false;
  EXPECT_NO_THROW((void)with_layout(skewed, split_only));
}

TEST(TwinLayout, TheNewestKeepsEveryCacheKeyAnOlderOneGetsItsOwn) {
  const TwinSpec spec = twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_K_S", 42);
  EXPECT_EQ(with_layout(spec, TwinLayout{}).cache_key(), spec.cache_key());
  TwinLayout legacy;
  legacy.mla_split = false;
  EXPECT_NE(with_layout(spec, legacy).cache_key(), spec.cache_key());
  TwinLayout v2 = legacy;
  v2.v3_router = false;
  EXPECT_NE(with_layout(spec, v2).cache_key(), with_layout(spec, legacy).cache_key());
}

bool has_tensor(const GgufInspection& g, const std::string& suffix) {
  return std::any_of(g.tensors.begin(), g.tensors.end(), [&](const TensorEntry& t) {
    return t.name.size() >= suffix.size() &&
           t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) == 0;
  });
}

// The oldest layout, built and loaded: what engines before April 2025 read
// (attn_kv_b whole, plain MHA sizes, V2's softmax router without a bias).
TEST(LegacyTwin, IsWrittenAsOlderConvertersWroteItAndThisEngineLoadsIt) {
  TwinLayout oldest;
  oldest.mla_split = false;
  oldest.v3_router = false;
  ShapeOverrides few;
  few.experts = 32;
  const TwinSpec spec = with_layout(twin_spec_for("kimi-k2.5", "tiny", few, "Q4_K_S", 42), oldest);
  const TwinResult twin = ensure_twin(spec, {}, false, [](const std::string&) {});
  const GgufInspection g = inspect_gguf(twin.path);
  EXPECT_TRUE(has_tensor(g, "attn_kv_b.weight"));
  EXPECT_FALSE(has_tensor(g, "attn_k_b.weight"));
  EXPECT_FALSE(has_tensor(g, "exp_probs_b.bias"));
  EXPECT_FALSE(g.mla);
  EXPECT_EQ(g.key_length,
            spec.profile.shape.qk_nope_head_dim + spec.profile.shape.qk_rope_head_dim);
  EXPECT_TRUE(g.tensor_check.missing.empty() && g.tensor_check.unexpected.empty())
      << "the tensor list check knows the legacy layout";
  const LoadedModel model(test::load_params(twin.path.string()));
  EXPECT_EQ(model.facts().arch, "deepseek2");
}

}  // namespace
}  // namespace moesweep
