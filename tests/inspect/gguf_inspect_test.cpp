// inspect on GGUF headers written with ggml's gguf API: exact byte counts
// against the tensor list we wrote, split models, and damaged files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/gguf_inspect.hpp"
#include "model/kv_cache.hpp"
#include "support/test_support.hpp"
#include "synthetic_gguf.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using test::SynthShape;

SynthShape small_shape() {
  return test::small_synth_shape();
}

uint64_t sum_where(const std::vector<test::SynthTensor>& ts, const char* part) {
  uint64_t total = 0;
  for (const auto& t : ts)
    if (t.name.find(part) != std::string::npos) total += t.bytes();
  return total;
}

std::string error_of(const std::filesystem::path& p) {
  try {
    inspect_gguf(p);
  } catch (const UserError& e) {
    return e.problem() + " | " + e.fix();
  }
  return "";
}

TEST(GgufInspect, GroupsAndBytesMatchTheTensorListWritten) {
  const SynthShape s = small_shape();
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "model", s);
  const auto tensors = test::deepseek2_tensors(s);
  const GgufInspection m = inspect_gguf(files.front());

  uint64_t all = 0;
  for (const auto& t : tensors) all += t.bytes();
  EXPECT_EQ(m.tensors.size(), tensors.size());
  EXPECT_EQ(m.tensor_bytes, all);
  EXPECT_EQ(m.arch, "deepseek2");
  EXPECT_EQ(m.file_type, "Q4_K_S");
  EXPECT_TRUE(m.mla);
  EXPECT_EQ(m.n_layer, 3);
  EXPECT_EQ(m.moe_layers(), 2);
  EXPECT_EQ(m.group(TensorGroup::kRoutedExperts).bytes, sum_where(tensors, "_exps"));
  EXPECT_EQ(m.group(TensorGroup::kSharedExperts).bytes, sum_where(tensors, "_shexp"));
  EXPECT_EQ(m.group(TensorGroup::kAttention).tensors, 3 * 6);  // q_a q_b kv_a_mqa k_b v_b output
  EXPECT_EQ(m.group(TensorGroup::kDenseFfn).tensors, 3);
  EXPECT_EQ(m.group(TensorGroup::kRouter).tensors, 2 * 2);
  EXPECT_EQ(m.group(TensorGroup::kEmbedding).bytes, ggml_row_size(s.embd_type, s.hidden) * s.vocab);

  // gate + up (hidden wide, expert_ff rows) and down (expert_ff wide, hidden rows)
  const uint64_t per_expert = 2 * ggml_row_size(s.expert_type, s.hidden) * s.expert_ff +
                              ggml_row_size(s.expert_type, s.expert_ff) * s.hidden;
  EXPECT_EQ(m.bytes_per_routed_expert(), per_expert);
}

TEST(GgufInspect, ActiveBytesPerTokenFollowTheDefinition) {
  const SynthShape s = small_shape();
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "model", s);
  const GgufInspection m = inspect_gguf(files.front());
  const ActiveBytes a = active_bytes_per_token(m, 1000, GGML_TYPE_Q8_0, GGML_TYPE_Q8_0);

  const uint64_t routed = m.group(TensorGroup::kRoutedExperts).bytes;
  EXPECT_EQ(a.routed_active, routed * s.used / s.experts);
  EXPECT_EQ(a.shared, m.group(TensorGroup::kSharedExperts).bytes);
  const uint64_t embd_row = ggml_row_size(s.embd_type, s.hidden);
  const uint64_t rest = m.tensor_bytes - routed - a.shared - m.group(TensorGroup::kEmbedding).bytes;
  EXPECT_EQ(a.non_expert, rest + embd_row);
  // MLA: one latent row (kv_lora_rank + rope) per token and layer, no V.
  EXPECT_EQ(kv_bytes_per_token(kv_shape_of(m), GGML_TYPE_Q8_0, GGML_TYPE_F16),
            3 * ggml_row_size(GGML_TYPE_Q8_0, s.kv_lora + s.rope));
  EXPECT_EQ(a.kv, 1000 * kv_bytes_per_token(kv_shape_of(m), GGML_TYPE_Q8_0, GGML_TYPE_Q8_0));
  EXPECT_EQ(a.total(), a.non_expert + a.routed_active + a.shared + a.kv);
  EXPECT_GT(a.flops, 0);
}

TEST(GgufInspect, FullSizeKimiSplitIn13PartsIsReadFromHeadersOnly) {
  SynthShape s;  // Kimi-K2.5's real shape
  const auto parts = test::write_synthetic_gguf(test::scratch_dir(), "Kimi-K2.5-Q4_K_S", s, 13);
  ASSERT_EQ(parts.size(), 13u);
  uint64_t on_disk = 0;
  for (const auto& p : parts) on_disk += std::filesystem::file_size(p);
  ASSERT_GT(on_disk, 500ull << 30);  // apparent size; the data is a hole nobody reads

  const GgufInspection from_first = inspect_gguf(parts.front());
  const GgufInspection from_middle = inspect_gguf(parts[6]);
  EXPECT_EQ(from_first.files.size(), 13u);
  EXPECT_EQ(from_first.file_bytes, on_disk);
  EXPECT_EQ(from_middle.tensor_bytes, from_first.tensor_bytes);
  EXPECT_EQ(from_first.n_layer, 61);
  EXPECT_EQ(from_first.tensors.size(), test::deepseek2_tensors(s).size());
  EXPECT_NEAR(static_cast<double>(from_first.params), 1.03e12, 0.03e12);

  const ActiveBytes a = active_bytes_per_token(from_first, 8192, GGML_TYPE_Q8_0, GGML_TYPE_Q8_0);
  // The seeds' hand estimate: "32B active at Q4 moves about 16 GB per token".
  EXPECT_GT(a.weights(), 15e9);
  EXPECT_LT(a.weights(), 25e9);
  EXPECT_EQ(a.kv, 8192ull * 61 * ggml_row_size(GGML_TYPE_Q8_0, 512 + 64));
}

TEST(GgufInspect, MtpLayersAreNotPartOfDecode) {
  SynthShape s = small_shape();
  s.nextn = 1;
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "mtp", s);
  const GgufInspection m = inspect_gguf(files.front());
  EXPECT_EQ(m.n_layer, 3);
  EXPECT_GT(m.group(TensorGroup::kMtp).tensors, 0);
  SynthShape plain = small_shape();
  const auto plain_files = test::write_synthetic_gguf(test::scratch_dir(), "plain", plain);
  const GgufInspection p = inspect_gguf(plain_files.front());
  EXPECT_EQ(active_bytes_per_token(m, 0, GGML_TYPE_F16, GGML_TYPE_F16).total(),
            active_bytes_per_token(p, 0, GGML_TYPE_F16, GGML_TYPE_F16).total());
}

TEST(GgufInspect, MissingSplitPartIsNamed) {
  const auto parts = test::write_synthetic_gguf(test::scratch_dir(), "m", small_shape(), 3);
  std::filesystem::remove(parts[2]);
  const std::string err = error_of(parts[0]);
  EXPECT_NE(err.find("m-00003-of-00003.gguf"), std::string::npos) << err;
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
}

TEST(GgufInspect, TruncatedDataIsRefusedWithTheFileAndTheFix) {
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "cut", small_shape());
  std::filesystem::resize_file(files[0], std::filesystem::file_size(files[0]) - 4096);
  const std::string err = error_of(files[0]);
  EXPECT_NE(err.find("cut.gguf' is truncated"), std::string::npos) << err;
  EXPECT_NE(err.find("download the file again"), std::string::npos) << err;
}

TEST(GgufInspect, TruncatedHeaderIsRefused) {
  const auto files = test::write_synthetic_gguf(test::scratch_dir(), "head", small_shape());
  std::filesystem::resize_file(files[0], 300);
  const std::string err = error_of(files[0]);
  EXPECT_NE(err.find("head.gguf': the GGUF header is truncated or corrupt"), std::string::npos)
      << err;
}

TEST(GgufInspect, NotAGgufFileIsRefused) {
  const auto path = test::scratch_dir() / "model.safetensors";
  std::ofstream(path) << "{\"__metadata__\": {}}";
  const std::string err = error_of(path);
  EXPECT_NE(err.find("is not a GGUF file"), std::string::npos) << err;
  EXPECT_NE(error_of(test::scratch_dir() / "absent.gguf").find("does not exist"),
            std::string::npos);
}

TEST(GgufInspect, ClassifiesEngineTensorNames) {
  EXPECT_EQ(classify_tensor("blk.3.ffn_gate_up_exps.weight", -1), TensorGroup::kRoutedExperts);
  EXPECT_EQ(classify_tensor("blk.3.ffn_down_exps.weight", -1), TensorGroup::kRoutedExperts);
  EXPECT_EQ(classify_tensor("blk.3.ffn_up_shexp.weight", -1), TensorGroup::kSharedExperts);
  EXPECT_EQ(classify_tensor("blk.3.ffn_gate_inp.weight", -1), TensorGroup::kRouter);
  EXPECT_EQ(classify_tensor("blk.3.exp_probs_b.bias", -1), TensorGroup::kRouter);
  EXPECT_EQ(classify_tensor("blk.0.ffn_down.weight", -1), TensorGroup::kDenseFfn);
  EXPECT_EQ(classify_tensor("blk.0.attn_kv_a_mqa.weight", -1), TensorGroup::kAttention);
  EXPECT_EQ(classify_tensor("blk.0.attn_kv_a_norm.weight", -1), TensorGroup::kNormsOther);
  EXPECT_EQ(classify_tensor("token_embd.weight", -1), TensorGroup::kEmbedding);
  EXPECT_EQ(classify_tensor("output.weight", -1), TensorGroup::kOutput);
  EXPECT_EQ(classify_tensor("output_norm.weight", -1), TensorGroup::kNormsOther);
  EXPECT_EQ(classify_tensor("blk.61.ffn_down_exps.weight", 61), TensorGroup::kMtp);
}

TEST(GgufInspect, CacheTypeNames) {
  EXPECT_EQ(parse_cache_type("q8_0"), GGML_TYPE_Q8_0);
  EXPECT_EQ(parse_cache_type("f16"), GGML_TYPE_F16);
  EXPECT_THROW(parse_cache_type("q8"), UserError);
}

}  // namespace
}  // namespace moesweep
