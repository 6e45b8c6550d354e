#include "synthetic_gguf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "gguf.h"

namespace moesweep::test {

uint64_t SynthTensor::bytes() const {
  uint64_t rows = 1;
  for (size_t i = 1; i < ne.size(); ++i) rows *= static_cast<uint64_t>(ne[i]);
  return ggml_row_size(type, ne[0]) * rows;
}

SynthShape small_synth_shape() {
  SynthShape s;
  s.layers = 3;
  s.hidden = 512;
  s.heads = 4;
  s.q_lora = 256;
  s.kv_lora = 256;
  s.experts = 16;
  s.used = 4;
  s.expert_ff = 256;
  s.dense_ff = 1024;
  s.vocab = 1024;
  return s;
}

std::vector<SynthTensor> deepseek2_tensors(const SynthShape& s) {
  std::vector<SynthTensor> t;
  const auto F32 = GGML_TYPE_F32;
  t.push_back({"token_embd.weight", s.embd_type, {s.hidden, s.vocab}});
  t.push_back({"output_norm.weight", F32, {s.hidden}});
  t.push_back({"output.weight", s.output_type, {s.hidden, s.vocab}});
  for (int64_t i = 0; i < s.layers + s.nextn; ++i) {
    auto n = [i](const char* what) { return fmt::format("blk.{}.{}", i, what); };
    t.push_back({n("attn_norm.weight"), F32, {s.hidden}});
    t.push_back({n("attn_q_a_norm.weight"), F32, {s.q_lora}});
    t.push_back({n("attn_kv_a_norm.weight"), F32, {s.kv_lora}});
    t.push_back({n("attn_q_a.weight"), s.attn_type, {s.hidden, s.q_lora}});
    t.push_back({n("attn_q_b.weight"), s.attn_type, {s.q_lora, s.heads * (s.nope + s.rope)}});
    t.push_back({n("attn_kv_a_mqa.weight"), s.attn_type, {s.hidden, s.kv_lora + s.rope}});
    t.push_back({n("attn_k_b.weight"), s.attn_type, {s.nope, s.kv_lora, s.heads}});
    t.push_back({n("attn_v_b.weight"), s.attn_type, {s.kv_lora, s.v_head, s.heads}});
    t.push_back({n("attn_output.weight"), s.attn_type, {s.heads * s.v_head, s.hidden}});
    t.push_back({n("ffn_norm.weight"), F32, {s.hidden}});
    if (i < s.dense_lead) {
      t.push_back({n("ffn_gate.weight"), s.ffn_type, {s.hidden, s.dense_ff}});
      t.push_back({n("ffn_up.weight"), s.ffn_type, {s.hidden, s.dense_ff}});
      t.push_back({n("ffn_down.weight"), s.ffn_type, {s.dense_ff, s.hidden}});
      continue;
    }
    t.push_back({n("ffn_gate_inp.weight"), F32, {s.hidden, s.experts}});
    t.push_back({n("exp_probs_b.bias"), F32, {s.experts}});
    t.push_back({n("ffn_gate_exps.weight"), s.expert_type, {s.hidden, s.expert_ff, s.experts}});
    t.push_back({n("ffn_up_exps.weight"), s.expert_type, {s.hidden, s.expert_ff, s.experts}});
    t.push_back({n("ffn_down_exps.weight"), s.expert_type, {s.expert_ff, s.hidden, s.experts}});
    t.push_back({n("ffn_gate_shexp.weight"), s.ffn_type, {s.hidden, s.expert_ff * s.shared}});
    t.push_back({n("ffn_up_shexp.weight"), s.ffn_type, {s.hidden, s.expert_ff * s.shared}});
    t.push_back({n("ffn_down_shexp.weight"), s.ffn_type, {s.expert_ff * s.shared, s.hidden}});
    if (i >= s.layers)
      t.push_back({n("nextn.eh_proj.weight"), s.attn_type, {2 * s.hidden, s.hidden}});
  }
  return t;
}

namespace {

void set_model_keys(gguf_context* g, const SynthShape& s) {
  gguf_set_val_str(g, "general.architecture", "deepseek2");
  gguf_set_val_str(g, "general.name", "synthetic-kimi");
  gguf_set_val_u32(g, "general.file_type", 14);  // LLAMA_FTYPE_MOSTLY_Q4_K_S
  auto u32 = [g](const char* key, int64_t v) {
    gguf_set_val_u32(g, fmt::format("deepseek2.{}", key).c_str(), static_cast<uint32_t>(v));
  };
  u32("block_count", s.layers + s.nextn);
  if (s.nextn) u32("nextn_predict_layers", s.nextn);
  u32("leading_dense_block_count", s.dense_lead);
  u32("embedding_length", s.hidden);
  u32("context_length", 262144);
  u32("attention.head_count", s.heads);
  u32("attention.head_count_kv", 1);
  u32("attention.key_length", s.kv_lora + s.rope);
  u32("attention.value_length", s.kv_lora);
  u32("attention.key_length_mla", s.nope + s.rope);
  u32("attention.value_length_mla", s.v_head);
  u32("attention.q_lora_rank", s.q_lora);
  u32("attention.kv_lora_rank", s.kv_lora);
  u32("rope.dimension_count", s.rope);
  u32("expert_count", s.experts);
  u32("expert_used_count", s.used);
  u32("expert_shared_count", s.shared);
  u32("expert_feed_forward_length", s.expert_ff);
  u32("vocab_size", s.vocab);
  for (const SynthShape::KeyOverride& o : s.key_overrides) {
    if (o.u64)
      gguf_set_val_u64(g, o.key.c_str(), o.value);
    else
      gguf_set_val_u32(g, o.key.c_str(), static_cast<uint32_t>(o.value));
  }
}

// Header only, then the file is extended to where its tensor table says the
// data ends: a sparse hole, so the size on disk is what a real model's is.
void write_part(gguf_context* g, const std::filesystem::path& path) {
  if (!gguf_write_to_file(g, path.string().c_str(), /*only_meta=*/true))
    throw std::runtime_error("cannot write " + path.string());
  uint64_t end = gguf_get_meta_size(g);
  if (gguf_get_n_tensors(g) > 0) {
    const uint64_t align = gguf_get_alignment(g);
    end = (end + align - 1) / align * align;
    const int64_t last = gguf_get_n_tensors(g) - 1;
    end += gguf_get_tensor_offset(g, last) + gguf_get_tensor_size(g, last);
  }
  std::filesystem::resize_file(path, end);
}

}  // namespace

std::vector<std::filesystem::path> write_synthetic_gguf(const std::filesystem::path& dir,
                                                        const std::string& stem,
                                                        const SynthShape& s, int parts) {
  std::vector<SynthTensor> tensors = deepseek2_tensors(s);
  std::erase_if(tensors, [&s](const SynthTensor& t) {
    return std::find(s.drop.begin(), s.drop.end(), t.name) != s.drop.end();
  });
  for (const SynthShape::Extra& e : s.extra) tensors.push_back({e.name, GGML_TYPE_F32, e.ne});
  ggml_init_params params{ggml_tensor_overhead() * (tensors.size() + 1), nullptr,
                          /*no_alloc=*/true};
  std::unique_ptr<ggml_context, decltype(&ggml_free)> ctx(ggml_init(params), &ggml_free);
  std::vector<std::filesystem::path> paths;
  const size_t per_part = (tensors.size() + parts - 1) / parts;
  for (int p = 0; p < parts; ++p) {
    std::unique_ptr<gguf_context, decltype(&gguf_free)> g(gguf_init_empty(), &gguf_free);
    if (p == 0) set_model_keys(g.get(), s);
    if (parts > 1) {  // the keys gguf-split writes into every part
      gguf_set_val_u16(g.get(), "split.no", static_cast<uint16_t>(p));
      gguf_set_val_u16(g.get(), "split.count", static_cast<uint16_t>(parts));
      gguf_set_val_i32(g.get(), "split.tensors.count", static_cast<int32_t>(tensors.size()));
    }
    for (size_t i = p * per_part; i < std::min(tensors.size(), (p + 1) * per_part); ++i) {
      const SynthTensor& st = tensors[i];
      ggml_tensor* t =
          ggml_new_tensor(ctx.get(), st.type, static_cast<int>(st.ne.size()), st.ne.data());
      ggml_set_name(t, st.name.c_str());
      gguf_add_tensor(g.get(), t);
    }
    paths.push_back(parts == 1 ? dir / (stem + ".gguf")
                               : dir / fmt::format("{}-{:05d}-of-{:05d}.gguf", stem, p + 1, parts));
    write_part(g.get(), paths.back());
  }
  return paths;
}

}  // namespace moesweep::test
