#pragma once
// Model profiles (profiles/models/*.json): the real shapes of MoE models, and
// the arithmetic on them (scaling to a twin, parameter counts) that the twin
// builder, `synth`, `predict` and the dry-run cost estimate share.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace moesweep {

struct ModelShape {
  int64_t layers = 0, dense_lead_layers = 0, hidden = 0;
  int64_t heads = 0, kv_heads = 0, head_dim = 0;  // head_dim: GQA archs
  int64_t q_lora_rank = 0, kv_lora_rank = 0;      // MLA (deepseek2)
  int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  int64_t experts = 0, experts_used = 0, shared_experts = 0;
  int64_t expert_ff = 0, dense_ff = 0, moe_every = 1;
  int64_t vocab = 0, context_length = 0;

  bool is_mla() const { return kv_lora_rank > 0; }
  bool is_moe_layer(int64_t il) const;
  nlohmann::json to_json() const;
};

// Llama 3.1-style RoPE frequency scaling: the engine's converter ships it as a
// rope_freqs.weight tensor of per-frequency factors (conversion/llama.py).
struct RopeScaling {
  std::string type;  // "" (none) or "llama3"
  double factor = 1, low_freq_factor = 1, high_freq_factor = 4;
  int64_t original_context = 8192;
  bool ships_rope_freqs() const { return type == "llama3"; }
  nlohmann::json to_json() const;
};

struct ModelProfile {
  std::string name, arch, description, source;
  ModelShape shape;
  RopeScaling rope_scaling;
  std::string gating = "softmax";  // softmax | sigmoid
  bool normalize_weights = true;
  double weights_scale = 1.0;
  double rope_freq_base = 10000;
  double rms_eps = 1e-6;
  std::map<std::string, nlohmann::json> scales;  // preset name -> {"hidden":..,"layers":..}
};

// Parameter counts, split the way the roofline needs them.
struct ParamCount {
  int64_t total = 0;
  int64_t embedding = 0;       // token_embd (one row read per token)
  int64_t output = 0;          // output head
  int64_t attention = 0;       // all attention weights and norms
  int64_t dense_ffn = 0;       // dense (non-MoE) FFN layers
  int64_t router = 0;          // expert gate (router) weights
  int64_t routed_experts = 0;  // all routed expert weights
  int64_t shared_experts = 0;
  int64_t norms = 0;
  // weights touched by one decoded token: everything but the embedding table
  // and the unused routed experts
  int64_t active = 0;
};

// Architectures the twin builder can make (the engine knows more).
const std::vector<std::string>& supported_twin_archs();

// `name_or_path`: a shipped profile name (profiles/models/<name>.json) or a path.
ModelProfile load_model_profile(const std::string& name_or_path);
ModelProfile parse_model_profile(const nlohmann::json& j, const std::string& origin);
std::vector<std::string> list_model_profiles();

ParamCount count_params(const ModelProfile& profile);

// Explicit shape overrides (--layers, --hidden, ...); 0 = not given.
struct ShapeOverrides {
  int64_t layers = 0, hidden = 0, heads = 0, expert_ff = 0, dense_ff = 0, vocab = 0;
  int64_t experts = 0, experts_used = 0, q_lora_rank = 0, kv_lora_rank = 0;
};

// Scales `real` to the preset `scale` ("full" keeps it) and applies overrides.
// Every width (hidden, heads, q LoRA rank, FFN sizes, vocab) shrinks by the
// same factor hidden/real.hidden so attention and expert weights keep their
// proportions; expert count, experts used, shared experts, dense-lead layers
// and per-head dimensions stay those of the real model. MLA (deepseek2) keeps
// the real kv_lora_rank and rope width (ik_llama.cpp refuses other MLA head
// sizes) and rounds its heads to a multiple of 4 (ik_llama.cpp needs that too).
ModelProfile scale_profile(const ModelProfile& real, const std::string& scale,
                           const ShapeOverrides& overrides);

}  // namespace moesweep
