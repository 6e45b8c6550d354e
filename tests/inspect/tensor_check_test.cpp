// inspect compares a GGUF's tensor names with what the real architecture
// ships (model/arch_tensors.hpp): a tensor it does not ship (the `.scale` and
// bias tensors old twins carried) and one it needs but lacks are both named.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "model/arch_tensors.hpp"
#include "model/gguf_inspect.hpp"
#include "support/test_support.hpp"
#include "synthetic_gguf.hpp"

namespace moesweep {
namespace {

using test::SynthShape;

TEST(TensorCheck, TheRealKimiLayoutMatchesAtFullSize) {
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "kimi", SynthShape{});
  const GgufInspection m = inspect_gguf(files.front());
  EXPECT_EQ(m.tensors.size(), 1096u);  // a full Kimi-K2.5 GGUF: 3 + 13 + 60 x 18
  EXPECT_TRUE(m.tensor_check.known);
  EXPECT_TRUE(m.tensor_check.unexpected.empty()) << fold_layer_names(m.tensor_check.unexpected);
  EXPECT_TRUE(m.tensor_check.missing.empty()) << fold_layer_names(m.tensor_check.missing);
}

TEST(TensorCheck, InspectNamesAnUnexpectedAndAMissingTensor) {
  SynthShape s = test::small_synth_shape();
  s.extra = {
      {"blk.0.attn_q_a.scale", {1}}, {"blk.1.attn_q_a.scale", {1}}, {"blk.2.attn_q.bias", {4}}};
  s.drop = {"blk.1.ffn_up_exps.weight"};
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "damaged", s);

  const test::CommandResult text = test::run_cli("inspect '" + files.front().string() + "'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("vs arch: 3 unexpected (not shipped by deepseek2): "
                          "blk.*.attn_q_a.scale (x2), blk.*.attn_q.bias"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("vs arch: 1 missing (expected by deepseek2): blk.*.ffn_up_exps.weight"),
            std::string::npos)
      << text.out;

  const test::CommandResult js = test::run_cli("inspect --json '" + files.front().string() + "'");
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const nlohmann::json c = nlohmann::json::parse(js.out)["tensor_check"];
  EXPECT_TRUE(c["arch_known"].get<bool>());
  EXPECT_EQ(c["unexpected"],
            nlohmann::json({"blk.0.attn_q_a.scale", "blk.1.attn_q_a.scale", "blk.2.attn_q.bias"}));
  EXPECT_EQ(c["missing"], nlohmann::json({"blk.1.ffn_up_exps.weight"}));
}

TEST(TensorCheck, AWholeFileSaysSo) {
  const auto files =
      test::write_synthetic_gguf(test::scratch_dir(), "whole", test::small_synth_shape());
  const test::CommandResult r = test::run_cli("inspect '" + files.front().string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("vs arch: the tensors deepseek2 ships, none missing, none extra"),
            std::string::npos)
      << r.out;
}

// What real files of the family may or may not carry is neither extra nor missing.
TEST(TensorCheck, OptionalAndFusedVariantsAreAccepted) {
  SynthShape s = test::small_synth_shape();
  s.drop = {"blk.1.exp_probs_b.bias", "blk.2.exp_probs_b.bias",  // DeepSeek-V2 has none
            "blk.1.ffn_gate_exps.weight", "blk.1.ffn_up_exps.weight"};
  s.extra = {{"blk.1.ffn_gate_up_exps.weight", {512, 512, 16}}};  // fused gate and up
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "variants", s);
  const GgufInspection m = inspect_gguf(files.front());
  EXPECT_TRUE(m.tensor_check.unexpected.empty()) << fold_layer_names(m.tensor_check.unexpected);
  EXPECT_TRUE(m.tensor_check.missing.empty()) << fold_layer_names(m.tensor_check.missing);
}

TEST(TensorCheck, MtpBlocksAreLeftUncompared) {
  SynthShape s = test::small_synth_shape();
  s.nextn = 1;
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "mtp", s);
  const GgufInspection m = inspect_gguf(files.front());
  EXPECT_TRUE(m.tensor_check.unexpected.empty()) << fold_layer_names(m.tensor_check.unexpected);
  EXPECT_TRUE(m.tensor_check.missing.empty());
  EXPECT_EQ(m.tensor_check.unchecked, 19);  // the MoE block's 18 + nextn.eh_proj
}

// A GQA family by name: q/k/v biases (which the old qwen3-moe twin had) are extra.
TEST(TensorCheck, QwenBiasesAreUnexpected) {
  ArchDims d;
  d.arch = "qwen3moe";
  d.layers = 2;
  d.experts = 8;
  std::vector<std::string> names;
  for (const ArchTensor& t : arch_tensors(d)) names.push_back(t.name);
  for (const char* b : {"blk.0.attn_q.bias", "blk.0.attn_k.bias", "blk.0.attn_v.bias"})
    names.push_back(b);
  const TensorListCheck c = check_tensor_names(names, d);
  EXPECT_EQ(c.unexpected, std::vector<std::string>(
                              {"blk.0.attn_q.bias", "blk.0.attn_k.bias", "blk.0.attn_v.bias"}));
  EXPECT_TRUE(c.missing.empty());
  EXPECT_EQ(fold_layer_names(c.unexpected),
            "blk.*.attn_q.bias, blk.*.attn_k.bias, blk.*.attn_v.bias");
}

TEST(TensorCheck, AnArchWithoutAListIsNotCompared) {
  ArchDims d;
  d.arch = "mamba";
  const TensorListCheck c = check_tensor_names({"token_embd.weight", "blk.0.ssm_in.weight"}, d);
  EXPECT_FALSE(c.known);
  EXPECT_TRUE(c.unexpected.empty());
  EXPECT_TRUE(c.missing.empty());
}

}  // namespace
}  // namespace moesweep
