// Model profiles as data: every shipped profile loads, the real shapes are the
// published ones, parameter counts match the models' stated sizes, scaling to a
// twin keeps what makes the architecture what it is, and bad profiles are
// refused with the field named.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "model/model_profile.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

double attention_share(const ModelProfile& p) {
  const ParamCount c = count_params(p);
  return 100.0 * static_cast<double>(c.attention) / static_cast<double>(c.active);
}

TEST(ModelProfiles, EveryShippedProfileLoads) {
  const std::vector<std::string> names = list_model_profiles();
  for (const char* wanted : {"kimi-k2.5", "llama4-scout"})
    EXPECT_NE(std::find(names.begin(), names.end(), wanted), names.end()) << wanted;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const ModelProfile p = load_model_profile(name);
    EXPECT_EQ(p.name, name);
    EXPECT_FALSE(p.arch.empty());
    const ParamCount c = count_params(p);
    EXPECT_GT(c.total, c.active);
    EXPECT_GT(c.active, 0);
  }
}

TEST(ModelProfiles, EveryShippedScalePresetScales) {
  for (const std::string& name : list_model_profiles()) {
    const ModelProfile real = load_model_profile(name);
    for (const auto& [scale, preset] : real.scales) {
      SCOPED_TRACE(name + " --scale " + scale);
      EXPECT_NO_THROW(scale_profile(real, scale, {}));
    }
  }
}

TEST(ModelProfiles, KimiK25HasTheRealShape) {
  const ModelProfile p = load_model_profile("kimi-k2.5");
  const ModelShape& m = p.shape;
  EXPECT_EQ(p.arch, "deepseek2");
  EXPECT_EQ(m.layers, 61);
  EXPECT_EQ(m.dense_lead_layers, 1);
  EXPECT_EQ(m.hidden, 7168);
  EXPECT_EQ(m.heads, 64);
  EXPECT_EQ(m.q_lora_rank, 1536);
  EXPECT_EQ(m.kv_lora_rank, 512);
  EXPECT_EQ(m.qk_nope_head_dim, 128);
  EXPECT_EQ(m.qk_rope_head_dim, 64);
  EXPECT_EQ(m.v_head_dim, 128);
  EXPECT_EQ(m.experts, 384);
  EXPECT_EQ(m.experts_used, 8);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.expert_ff, 2048);
  EXPECT_EQ(m.dense_ff, 18432);
  EXPECT_EQ(m.vocab, 163840);
  EXPECT_EQ(m.context_length, 262144);
  EXPECT_EQ(p.gating, "sigmoid");
  EXPECT_TRUE(p.normalize_weights);
  EXPECT_TRUE(m.is_mla());
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_TRUE(m.is_moe_layer(60));
}

TEST(ModelProfiles, LlamaScoutHasTheRealShape) {
  const ModelProfile p = load_model_profile("llama4-scout");
  const ModelShape& m = p.shape;
  EXPECT_EQ(p.arch, "llama4");
  EXPECT_EQ(m.layers, 48);
  EXPECT_EQ(m.hidden, 5120);
  EXPECT_EQ(m.heads, 40);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.experts, 16);
  EXPECT_EQ(m.experts_used, 1);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.expert_ff, 8192);
  EXPECT_EQ(m.vocab, 202048);
  EXPECT_FALSE(m.is_mla());
}

TEST(ParamCount, KimiK25IsAboutOneTrillionWith32BActive) {
  const ParamCount c = count_params(load_model_profile("kimi-k2.5"));
  // Published: 1.04T total, ~32B active (our count leaves out small biases).
  EXPECT_GT(c.total, 1.00e12);
  EXPECT_LT(c.total, 1.06e12);
  EXPECT_GT(c.active, 30.0e9);
  EXPECT_LT(c.active, 33.5e9);
  // Routed experts are almost all of it; one token touches 8 of 384.
  EXPECT_GT(static_cast<double>(c.routed_experts) / static_cast<double>(c.total), 0.95);
  EXPECT_EQ(c.total, c.embedding + c.output + c.norms + c.attention + c.router + c.routed_experts +
                         c.shared_experts + c.dense_ffn);
}

TEST(ParamCount, LlamaScoutIsAbout109BWith17BActive) {
  const ParamCount c = count_params(load_model_profile("llama4-scout"));
  EXPECT_GT(c.total, 100e9);
  EXPECT_LT(c.total, 115e9);
  EXPECT_GT(c.active, 15e9);
  EXPECT_LT(c.active, 18e9);
}

TEST(ScaleProfile, TinyKimiKeepsExpertsDenseLeadAndHeadDims) {
  const ModelProfile real = load_model_profile("kimi-k2.5");
  const ModelProfile tiny = scale_profile(real, "tiny", {});
  const ModelShape& m = tiny.shape;
  EXPECT_EQ(tiny.arch, "deepseek2");
  EXPECT_EQ(m.hidden, real.scales.at("tiny")["hidden"].get<int64_t>());
  EXPECT_EQ(m.layers, real.scales.at("tiny")["layers"].get<int64_t>());
  EXPECT_LT(m.hidden, real.shape.hidden);
  EXPECT_EQ(m.experts, 384);
  EXPECT_EQ(m.experts_used, 8);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.dense_lead_layers, 1);
  EXPECT_EQ(m.qk_nope_head_dim, 128);
  EXPECT_EQ(m.qk_rope_head_dim, 64);
  EXPECT_EQ(m.v_head_dim, 128);
  EXPECT_TRUE(m.is_mla());
  // K-quant rows need multiples of 256.
  EXPECT_EQ(m.hidden % 256, 0);
  EXPECT_EQ(m.expert_ff % 256, 0);
  EXPECT_LT(count_params(tiny).total, count_params(real).total / 1000);
}

// MLA twins keep the real 512-wide KV latent and 64-wide rope (ik_llama.cpp
// loads no other DeepSeek head size), so their latent projections shrink with
// hidden only, not with the heads too: attention weighs more than in the real
// model, by less than 12 points of the active parameters.
TEST(ScaleProfile, MlaTwinsKeepTheLatentSoAttentionWeighsSomewhatMore) {
  const ModelProfile real = load_model_profile("kimi-k2.5");
  for (const std::string scale : {"tiny", "small"}) {
    SCOPED_TRACE(scale);
    const ModelProfile twin = scale_profile(real, scale, {});
    EXPECT_EQ(twin.shape.kv_lora_rank, 512);
    EXPECT_GT(attention_share(twin), attention_share(real));
    EXPECT_LT(attention_share(twin), attention_share(real) + 12.0);
  }
}

TEST(ScaleProfile, FullScaleIsTheRealModel) {
  const ModelProfile real = load_model_profile("kimi-k2.5");
  const ModelProfile full = scale_profile(real, "full", {});
  EXPECT_EQ(full.shape.to_json(), real.shape.to_json());
}

TEST(ScaleProfile, OverridesWinOverThePreset) {
  ShapeOverrides o;
  o.layers = 3;
  o.hidden = 512;
  o.experts = 16;
  const ModelProfile twin = scale_profile(load_model_profile("kimi-k2.5"), "tiny", o);
  EXPECT_EQ(twin.shape.layers, 3);
  EXPECT_EQ(twin.shape.hidden, 512);
  EXPECT_EQ(twin.shape.experts, 16);
  EXPECT_EQ(twin.shape.experts_used, 8);
}

TEST(ScaleProfile, RefusesImpossibleShapes) {
  const ModelProfile real = load_model_profile("kimi-k2.5");
  ShapeOverrides hidden;
  hidden.hidden = 1000;
  EXPECT_THROW(scale_profile(real, "tiny", hidden), UserError);
  ShapeOverrides layers;
  layers.layers = 1;  // the one dense-lead layer would leave no MoE layer
  EXPECT_THROW(scale_profile(real, "tiny", layers), UserError);
  ShapeOverrides used;
  used.experts = 4;  // 8 used of 4
  EXPECT_THROW(scale_profile(real, "tiny", used), UserError);
  try {
    scale_profile(real, "huge", {});
    ADD_FAILURE() << "unknown scale accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("huge"), std::string::npos) << e.problem();
    EXPECT_NE(e.expected().find("tiny"), std::string::npos) << e.expected();
  }
}

// A valid minimal profile to break one field at a time.
nlohmann::json minimal_profile() {
  return nlohmann::json::parse(R"({
    "name": "mini", "arch": "deepseek2",
    "shape": {"layers": 3, "dense_lead_layers": 1, "hidden": 512, "heads": 4,
              "q_lora_rank": 256, "kv_lora_rank": 64, "qk_nope_head_dim": 64,
              "qk_rope_head_dim": 32, "v_head_dim": 64, "experts": 8, "experts_used": 2,
              "shared_experts": 1, "expert_ff": 256, "dense_ff": 1024, "vocab": 1024}})");
}

std::string user_error_of(const nlohmann::json& j) {
  try {
    parse_model_profile(j, "mini.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseModelProfile, MinimalProfileParses) {
  const ModelProfile p = parse_model_profile(minimal_profile(), "mini.json");
  EXPECT_EQ(p.shape.experts, 8);
  EXPECT_EQ(p.shape.context_length, 4096);  // default
  EXPECT_EQ(p.gating, "softmax");           // default
}

TEST(ParseModelProfile, MissingFieldIsNamed) {
  for (const char* field : {"vocab", "experts", "expert_ff", "hidden"}) {
    nlohmann::json j = minimal_profile();
    j["shape"].erase(field);
    const std::string msg = user_error_of(j);
    EXPECT_NE(msg.find(std::string("'") + field + "' is missing"), std::string::npos) << msg;
    EXPECT_NE(msg.find("mini.json"), std::string::npos) << msg;
  }
  nlohmann::json no_arch = minimal_profile();
  no_arch.erase("arch");
  EXPECT_NE(user_error_of(no_arch).find("'arch' is missing"), std::string::npos);
  nlohmann::json no_shape = minimal_profile();
  no_shape.erase("shape");
  EXPECT_NE(user_error_of(no_shape).find("'shape' is missing"), std::string::npos);
}

TEST(ParseModelProfile, BadExpertsUsedIsRefused) {
  for (int used : {0, -1, 9}) {
    nlohmann::json j = minimal_profile();
    j["shape"]["experts_used"] = used;
    EXPECT_NE(user_error_of(j).find("experts_used=" + std::to_string(used)), std::string::npos)
        << used;
  }
}

TEST(ParseModelProfile, WrongTypesAndUnknownArchAreRefused) {
  nlohmann::json text_layers = minimal_profile();
  text_layers["shape"]["layers"] = "three";
  EXPECT_NE(user_error_of(text_layers).find("'layers'"), std::string::npos);
  nlohmann::json arch = minimal_profile();
  arch["arch"] = "gpt2";
  EXPECT_NE(user_error_of(arch).find("arch 'gpt2'"), std::string::npos);
  nlohmann::json gating = minimal_profile();
  gating["routing"] = {{"gating", "argmax"}};
  EXPECT_NE(user_error_of(gating).find("argmax"), std::string::npos);
  nlohmann::json mla = minimal_profile();
  mla["shape"].erase("v_head_dim");
  EXPECT_NE(user_error_of(mla).find("head dims"), std::string::npos);
  EXPECT_FALSE(user_error_of(nlohmann::json::array()).empty());
}

TEST(LoadModelProfile, UnknownNameListsTheShippedProfiles) {
  try {
    load_model_profile("kimi-k9");
    ADD_FAILURE() << "unknown profile accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("unknown model profile 'kimi-k9'"), std::string::npos)
        << e.problem();
    EXPECT_NE(e.expected().find("kimi-k2.5"), std::string::npos) << e.expected();
    EXPECT_EQ(e.exit_code(), exit_code::kBadInput);
  }
}

}  // namespace
}  // namespace moesweep
