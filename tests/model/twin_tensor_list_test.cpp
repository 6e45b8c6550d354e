// A twin holds exactly the tensors of the real model (issue 19): the names
// the real published GGUF has (tests/data/published/tensor_lists.json, as the
// engine's converter writes them), shapes up to the scaling, and nothing else
// (no `.scale`/`.input_scale` per weight, no q/k/v biases). Then the real
// engine loads every shipped twin, and inspect finds nothing to complain about.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "engine/engine.hpp"
#include "gguf.h"
#include "model/arch_tensors.hpp"
#include "model/model_profile.hpp"
#include "support/engine_fixtures.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using Shapes = std::map<std::string, std::vector<int64_t>>;

const nlohmann::json& published_lists() {
  static const nlohmann::json j = nlohmann::json::parse(
      std::ifstream(std::string(MOESWEEP_TEST_DATA) + "/published/tensor_lists.json"));
  return j;
}

// The published file's names and shapes, repeated over `m`'s blocks: its
// dense-layer list where `m` has a dense block, its MoE list elsewhere.
Shapes published_for(const nlohmann::json& p, const ModelShape& m) {
  Shapes out;
  for (const auto& [name, ne] : p["global"].items()) out[name] = ne.get<std::vector<int64_t>>();
  for (int64_t il = 0; il < m.layers; ++il) {
    const nlohmann::json& layer = p[m.is_moe_layer(il) ? "moe_layer" : "dense_layer"];
    for (const auto& [name, ne] : layer.items())
      out[fmt::format("blk.{}.{}", il, name)] = ne.get<std::vector<int64_t>>();
  }
  return out;
}

Shapes planned(const ModelProfile& p) {
  Shapes out;
  for (const ArchTensor& t : arch_tensors(arch_dims_of(p))) out[t.name] = t.ne;
  return out;
}

// Names and shapes (trailing 1s dropped, as ggml pads ne to 4) of a GGUF.
Shapes read_gguf(const std::filesystem::path& path) {
  gguf_init_params params{/*no_alloc=*/true, nullptr};
  std::unique_ptr<gguf_context, decltype(&gguf_free)> g(gguf_init_from_file(path.c_str(), params),
                                                        &gguf_free);
  EXPECT_TRUE(g) << path;
  Shapes out;
  for (int64_t i = 0; g && i < gguf_get_n_tensors(g.get()); ++i) {
    const int64_t* ne = gguf_get_tensor_ne(g.get(), i);
    std::vector<int64_t> dims(ne, ne + 4);
    while (dims.size() > 1 && dims.back() == 1) dims.pop_back();
    out[gguf_get_tensor_name(g.get(), i)] = dims;
  }
  return out;
}

std::set<std::string> names(const Shapes& s) {
  std::set<std::string> out;
  for (const auto& [name, ne] : s) out.insert(name);
  return out;
}

TEST(PublishedLists, CoverEveryShippedProfile) {
  std::set<std::string> listed;
  for (const auto& [name, p] : published_lists().items()) listed.insert(name);
  const std::vector<std::string> shipped = list_model_profiles();
  EXPECT_EQ(listed, std::set<std::string>(shipped.begin(), shipped.end()));
}

class TwinTensorList : public ::testing::TestWithParam<std::string> {
 protected:
  const nlohmann::json& published() const { return published_lists().at(GetParam()); }
};

// At full scale the list we write is the published file's, name for name and shape for shape.
TEST_P(TwinTensorList, FullScaleListIsThePublishedFile) {
  const ModelProfile real = load_model_profile(GetParam());
  const Shapes want = published_for(published(), real.shape);
  EXPECT_EQ(want.size(), published()["tensors"].get<size_t>()) << "the published tensor count";
  EXPECT_EQ(planned(real), want);
}

TEST_P(TwinTensorList, TinyTwinHasExactlyTheRealNamesAndTheScaledShapes) {
  const ModelProfile tiny = scale_profile(load_model_profile(GetParam()), "tiny", {});
  const Shapes file = read_gguf(test::tiny_twin_of(GetParam()));
  const Shapes real = published_for(published(), tiny.shape);
  EXPECT_EQ(names(file), names(real));
  EXPECT_EQ(file, planned(tiny));
  for (const auto& [name, ne] : file) {
    EXPECT_FALSE(name.ends_with(".scale") || name.ends_with(".input_scale")) << name;
    if (real.count(name)) {
      EXPECT_EQ(ne.size(), real.at(name).size()) << name;
    }
  }
}

// The engine checks every shape against the metadata; inspect finds no stray or missing tensor.
TEST_P(TwinTensorList, TheEngineLoadsTheTinyTwinAndInspectAgrees) {
  const std::filesystem::path twin = test::tiny_twin_of(GetParam());
  const ModelProfile tiny = scale_profile(load_model_profile(GetParam()), "tiny", {});
  const LoadedModel model(test::load_params(twin.string()));
  EXPECT_EQ(model.facts().n_layer, tiny.shape.layers);
  const test::CommandResult r = test::run_cli("inspect --json '" + twin.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json c = nlohmann::json::parse(r.out)["tensor_check"];
  EXPECT_TRUE(c["arch_known"].get<bool>());
  EXPECT_TRUE(c["unexpected"].empty()) << c.dump();
  EXPECT_TRUE(c["missing"].empty()) << c.dump();
}

INSTANTIATE_TEST_SUITE_P(Profiles, TwinTensorList,
                         ::testing::Values("kimi-k2.5", "deepseek-v3", "llama4-scout", "qwen3-moe",
                                           "llama3-70b"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace_if(
                               n.begin(), n.end(), [](char ch) { return !std::isalnum(ch); }, '_');
                           return n;
                         });

// ik_llama.cpp loads a deepseek2 GGUF only with DeepSeek's MLA head sizes
// (K 576 = kv_lora_rank 512 + rope 64, V 512) and heads in fours: every
// preset of every MLA profile keeps them, and so does the tiny twin's file.
TEST(MlaTwin, KeepsTheRealLatentRopeAndValueWidths) {
  for (const std::string name : {"kimi-k2.5", "deepseek-v3"}) {
    const ModelProfile real = load_model_profile(name);
    for (const auto& [scale, preset] : real.scales) {
      SCOPED_TRACE(name + " " + scale);
      const ModelShape m = scale_profile(real, scale, {}).shape;
      EXPECT_EQ(m.kv_lora_rank, 512);
      EXPECT_EQ(m.qk_rope_head_dim, 64);
      EXPECT_EQ(m.v_head_dim, real.shape.v_head_dim);
      EXPECT_EQ(m.qk_nope_head_dim, real.shape.qk_nope_head_dim);
      EXPECT_EQ(m.heads % 4, 0);
    }
  }
  const Shapes file = read_gguf(test::tiny_twin_of("kimi-k2.5"));
  const int64_t heads = file.at("blk.1.attn_k_b.weight").at(2);
  EXPECT_EQ(file.at("blk.1.attn_kv_a_mqa.weight").at(1), 576);
  EXPECT_EQ(file.at("blk.1.attn_kv_a_norm.weight"), std::vector<int64_t>({512}));
  EXPECT_EQ(file.at("blk.1.attn_k_b.weight"), std::vector<int64_t>({128, 512, heads}));
  EXPECT_EQ(file.at("blk.1.attn_v_b.weight"), std::vector<int64_t>({512, 128, heads}));
}

}  // namespace
}  // namespace moesweep
