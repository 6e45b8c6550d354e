// GGUF metadata of a twin, written with the same keys the engine's converter
// writes for the real model (conversion/deepseek.py etc.), so the engine loads
// a twin through the same code paths as the real file.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gguf.h"
#include "model/twin_spec.hpp"
#include "model/twin_vocab.hpp"
#include "util/hash.hpp"

namespace moesweep {
namespace {

class MetadataWriter {
 public:
  MetadataWriter(gguf_context* ctx, std::string arch) : ctx_(ctx), arch_(std::move(arch)) {}
  void u32(const std::string& key, int64_t v) {
    gguf_set_val_u32(ctx_, k(key).c_str(), static_cast<uint32_t>(v));
  }
  void f32(const std::string& key, double v) {
    gguf_set_val_f32(ctx_, k(key).c_str(), static_cast<float>(v));
  }
  void boolean(const std::string& key, bool v) { gguf_set_val_bool(ctx_, k(key).c_str(), v); }

 private:
  std::string k(const std::string& key) const { return arch_ + "." + key; }
  gguf_context* ctx_;
  std::string arch_;
};

// deepseek2 as converters wrote it before llama.cpp PR #12801 (April 2025):
// plain multi-head attention sizes, kv_b whole. Engines before it require
// rope.scaling.yarn_log_multiplier (unused without YaRN scaling: log(1) = 0).
void add_legacy_mla_keys(MetadataWriter& w, const ModelProfile& p) {
  const ModelShape& m = p.shape;
  w.u32("attention.head_count_kv", m.heads);
  w.u32("leading_dense_block_count", m.dense_lead_layers);
  if (m.q_lora_rank > 0) w.u32("attention.q_lora_rank", m.q_lora_rank);
  w.u32("attention.kv_lora_rank", m.kv_lora_rank);
  w.u32("attention.key_length", m.qk_nope_head_dim + m.qk_rope_head_dim);
  w.u32("attention.value_length", m.v_head_dim);
  w.u32("rope.dimension_count", m.qk_rope_head_dim);
  w.f32("rope.scaling.yarn_log_multiplier", 0.0);
  w.u32("expert_shared_count", m.shared_experts);
  w.f32("expert_weights_scale", p.weights_scale);
  w.boolean("expert_weights_norm", p.normalize_weights);
}

}  // namespace

nlohmann::json TwinSpec::to_json() const {
  const ModelProfile& p = profile;
  // twin-3: written by our GGUF writer with exactly the real tensor list
  // (issue 19); a new generator name keeps older cached twins from reuse.
  nlohmann::json j = {{"generator", "moesweep-twin-3"},
                      {"engine_commit", MOESWEEP_ENGINE_COMMIT},
                      {"name", p.name},
                      {"arch", p.arch},
                      {"scale", scale},
                      {"quant", quant},
                      {"seed", seed},
                      {"shape", p.shape.to_json()},
                      {"gating", p.gating},
                      {"normalize_weights", p.normalize_weights},
                      {"weights_scale", p.weights_scale},
                      {"rope_freq_base", p.rope_freq_base},
                      {"rms_eps", p.rms_eps}};
  // Only servable twins carry the key, so the cache keys of all others stay.
  if (!tokenizer.empty()) j["tokenizer"] = tokenizer;
  // Only when set: every twin without a skew keeps its cache key (and file).
  if (routing_skew > 0) j["routing_skew"] = routing_skew;
  if (!p.rope_scaling.type.empty()) j["rope_scaling"] = p.rope_scaling.to_json();
  // Only for older engines' layouts: the newest keeps every cache key (and file).
  if (!layout.is_newest())
    j["layout"] = {{"mla_split", layout.mla_split}, {"v3_router", layout.v3_router}};
  if (layout.yarn_log_key) j["layout"]["yarn_log_key"] = true;
  return j;
}

std::string TwinSpec::cache_key() const {
  return sha256_hex(to_json().dump()).substr(0, 12);
}

std::string TwinSpec::file_stem() const {
  return fmt::format("{}-{}-{}-s{}-{}", profile.name, scale, quant, seed, cache_key());
}

gguf_context* make_twin_metadata(const TwinSpec& spec) {
  const ModelProfile& p = spec.profile;
  const ModelShape& m = p.shape;
  gguf_context* ctx = gguf_init_empty();
  gguf_set_val_str(ctx, "general.architecture", p.arch.c_str());
  gguf_set_val_str(ctx, "general.name",
                   fmt::format("{} twin ({}, seed {})", p.name, spec.scale, spec.seed).c_str());
  gguf_set_val_str(ctx, "tokenizer.ggml.model", "no_vocab");
  add_twin_tokenizer(ctx, spec);  // a servable twin's real tokenizer replaces no_vocab
  MetadataWriter w(ctx, p.arch);
  w.u32("vocab_size", m.vocab);
  w.u32("context_length", m.context_length);
  w.u32("embedding_length", m.hidden);
  w.u32("block_count", m.layers);
  w.u32("feed_forward_length", m.dense_ff > 0 ? m.dense_ff : m.expert_ff);
  w.u32("attention.head_count", m.heads);
  w.f32("attention.layer_norm_rms_epsilon", p.rms_eps);
  w.f32("rope.freq_base", p.rope_freq_base);
  w.u32("expert_count", m.experts);
  w.u32("expert_used_count", m.experts_used);
  w.u32("expert_feed_forward_length", m.expert_ff);
  w.u32("expert_gating_func", p.gating == "sigmoid" ? 2 : 1);
  if (p.arch == "deepseek2" && !spec.layout.mla_split) {
    add_legacy_mla_keys(w, p);
  } else if (p.arch == "deepseek2") {
    // MLA is stored as MQA with wide heads (see the engine's converter).
    w.u32("attention.head_count_kv", 1);
    w.u32("leading_dense_block_count", m.dense_lead_layers);
    if (m.q_lora_rank > 0) w.u32("attention.q_lora_rank", m.q_lora_rank);
    w.u32("attention.kv_lora_rank", m.kv_lora_rank);
    w.u32("attention.key_length", m.kv_lora_rank + m.qk_rope_head_dim);
    w.u32("attention.value_length", m.kv_lora_rank);
    w.u32("attention.key_length_mla", m.qk_nope_head_dim + m.qk_rope_head_dim);
    w.u32("attention.value_length_mla", m.v_head_dim);
    w.u32("rope.dimension_count", m.qk_rope_head_dim);
    if (spec.layout.yarn_log_key) w.f32("rope.scaling.yarn_log_multiplier", 0.0);
    w.u32("expert_shared_count", m.shared_experts);
    w.f32("expert_weights_scale", p.weights_scale);
    w.boolean("expert_weights_norm", p.normalize_weights);
  } else {
    w.u32("attention.head_count_kv", m.kv_heads);
    w.u32("attention.key_length", m.head_dim);
    w.u32("attention.value_length", m.head_dim);
    w.u32("rope.dimension_count", m.head_dim);
    if (p.arch == "llama4") {
      w.u32("interleave_moe_layer_step", m.moe_every);
      w.u32("expert_shared_count", m.shared_experts);
    }
  }
  return ctx;
}

}  // namespace moesweep
