#include "model/model_profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "engine/engine_limits.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {

const std::vector<std::string>& supported_twin_archs() {
  // llama: dense twins (experts 0), the reference for dense-versus-MoE runs.
  static const std::vector<std::string> archs = {"deepseek2", "llama4", "qwen3moe", "llama"};
  return archs;
}

bool ModelShape::is_moe_layer(int64_t il) const {
  if (experts == 0 || il < dense_lead_layers) return false;
  return moe_every <= 1 || (il + 1) % moe_every == 0;
}

nlohmann::json ModelShape::to_json() const {
  return {{"layers", layers},
          {"dense_lead_layers", dense_lead_layers},
          {"hidden", hidden},
          {"heads", heads},
          {"kv_heads", kv_heads},
          {"head_dim", head_dim},
          {"q_lora_rank", q_lora_rank},
          {"kv_lora_rank", kv_lora_rank},
          {"qk_nope_head_dim", qk_nope_head_dim},
          {"qk_rope_head_dim", qk_rope_head_dim},
          {"v_head_dim", v_head_dim},
          {"experts", experts},
          {"experts_used", experts_used},
          {"shared_experts", shared_experts},
          {"expert_ff", expert_ff},
          {"dense_ff", dense_ff},
          {"moe_every", moe_every},
          {"vocab", vocab},
          {"context_length", context_length}};
}

nlohmann::json RopeScaling::to_json() const {
  return {{"type", type},
          {"factor", factor},
          {"low_freq_factor", low_freq_factor},
          {"high_freq_factor", high_freq_factor},
          {"original_context_length", original_context}};
}

namespace {

// "rope_scaling": {"type": "llama3", "factor": 8, ...}, as the real config.json has it.
RopeScaling parse_rope_scaling(const nlohmann::json& j, const std::string& origin) {
  RopeScaling r;
  if (!j.contains("rope_scaling")) return r;
  const std::string so = origin + " rope_scaling";
  r.type = require_field<std::string>(j["rope_scaling"], "type", so);
  if (r.type != "llama3") {
    throw UserError(fmt::format("{}: type '{}'", so, r.type), "\"llama3\" (Llama 3.1 and 4)",
                    "fix rope_scaling.type, or leave rope_scaling out");
  }
  r.factor = require_field<double>(j["rope_scaling"], "factor", so);
  r.low_freq_factor = require_field<double>(j["rope_scaling"], "low_freq_factor", so);
  r.high_freq_factor = require_field<double>(j["rope_scaling"], "high_freq_factor", so);
  r.original_context = require_field<int64_t>(j["rope_scaling"], "original_context_length", so);
  if (!(r.factor > 0 && r.low_freq_factor > 0 && r.high_freq_factor > 0 &&
        r.original_context > 0)) {
    throw UserError(fmt::format("{}: a factor or the original context is not positive", so),
                    "factor, low/high_freq_factor and original_context_length > 0",
                    "copy the values from the model's config.json");
  }
  return r;
}

// The "shape" object: every dimension a twin and the KV/roofline arithmetic need.
ModelShape parse_shape(const nlohmann::json& s, const std::string& so) {
  ModelShape m;
  m.layers = require_field<int64_t>(s, "layers", so);
  m.hidden = require_field<int64_t>(s, "hidden", so);
  m.heads = require_field<int64_t>(s, "heads", so);
  m.kv_heads = optional_field<int64_t>(s, "kv_heads", m.heads, so);
  m.head_dim = optional_field<int64_t>(s, "head_dim", 0, so);
  m.dense_lead_layers = optional_field<int64_t>(s, "dense_lead_layers", 0, so);
  m.q_lora_rank = optional_field<int64_t>(s, "q_lora_rank", 0, so);
  m.kv_lora_rank = optional_field<int64_t>(s, "kv_lora_rank", 0, so);
  m.qk_nope_head_dim = optional_field<int64_t>(s, "qk_nope_head_dim", 0, so);
  m.qk_rope_head_dim = optional_field<int64_t>(s, "qk_rope_head_dim", 0, so);
  m.v_head_dim = optional_field<int64_t>(s, "v_head_dim", 0, so);
  m.experts = require_field<int64_t>(s, "experts", so);
  m.experts_used = require_field<int64_t>(s, "experts_used", so);
  m.shared_experts = optional_field<int64_t>(s, "shared_experts", 0, so);
  m.expert_ff = require_field<int64_t>(s, "expert_ff", so);
  m.dense_ff = optional_field<int64_t>(s, "dense_ff", 0, so);
  m.moe_every = optional_field<int64_t>(s, "moe_every", 1, so);
  m.vocab = require_field<int64_t>(s, "vocab", so);
  m.context_length = optional_field<int64_t>(s, "context_length", 4096, so);
  return m;
}

// The shape's rules: attention head dims, experts exactly for the MoE archs.
void check_shape(const ModelProfile& p, const std::string& origin) {
  const ModelShape& m = p.shape;
  if (m.is_mla() && (m.qk_nope_head_dim <= 0 || m.qk_rope_head_dim <= 0 || m.v_head_dim <= 0)) {
    throw UserError(fmt::format("{}: MLA model (kv_lora_rank set) lacks head dims", origin),
                    "qk_nope_head_dim, qk_rope_head_dim and v_head_dim > 0",
                    "add them to \"shape\"");
  }
  if (!m.is_mla() && m.head_dim <= 0) {
    throw UserError(fmt::format("{}: GQA model lacks head_dim", origin), "\"head_dim\" > 0",
                    "add head_dim to \"shape\" (hidden / heads for most models)");
  }
  const bool dense = m.experts == 0 && m.experts_used == 0;
  if (dense != (p.arch == "llama")) {
    throw UserError(fmt::format("{}: arch '{}' with {} experts", origin, p.arch, m.experts),
                    "experts 0 (dense) exactly for arch llama, experts > 0 for the MoE archs",
                    "fix \"arch\" or the expert counts in \"shape\"");
  }
  if (!dense && (m.experts_used <= 0 || m.experts_used > m.experts)) {
    throw UserError(
        fmt::format("{}: experts_used={} with experts={}", origin, m.experts_used, m.experts),
        "1 <= experts_used <= experts", "fix the expert counts in \"shape\"");
  }
  if (!dense && m.layers <= m.dense_lead_layers) {
    throw UserError(fmt::format("{}: {} layers but {} dense-lead layers", origin, m.layers,
                                m.dense_lead_layers),
                    "more layers than dense-lead layers (at least one MoE layer)",
                    "fix \"layers\"");
  }
}

}  // namespace

ModelProfile parse_model_profile(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) {
    throw UserError(fmt::format("{}: a model profile must be a JSON object", origin),
                    "{\"name\":..., \"arch\":..., \"shape\":{...}}",
                    "see profiles/models/kimi-k2.5.json");
  }
  ModelProfile p;
  p.name = require_field<std::string>(j, "name", origin);
  p.arch = require_field<std::string>(j, "arch", origin);
  if (std::find(supported_twin_archs().begin(), supported_twin_archs().end(), p.arch) ==
      supported_twin_archs().end()) {
    throw UserError(fmt::format("{}: arch '{}' is not one the twin builder knows", origin, p.arch),
                    fmt::format("one of {}", fmt::join(supported_twin_archs(), ", ")),
                    "use a supported arch, or run sweeps on a real GGUF with -m");
  }
  p.description = optional_field<std::string>(j, "description", "", origin);
  p.source = optional_field<std::string>(j, "source", "", origin);
  if (!j.contains("shape") || !j["shape"].is_object()) {
    throw UserError(fmt::format("{}: required object 'shape' is missing", origin),
                    "\"shape\": {...}", "add the model's dimensions under \"shape\"");
  }
  p.shape = parse_shape(j["shape"], origin + " shape");
  check_shape(p, origin);
  if (j.contains("routing")) {
    const nlohmann::json& r = j["routing"];
    p.gating = optional_field<std::string>(r, "gating", "softmax", origin + " routing");
    p.normalize_weights = optional_field<bool>(r, "normalize_weights", true, origin + " routing");
    p.weights_scale = optional_field<double>(r, "weights_scale", 1.0, origin + " routing");
  }
  if (p.gating != "softmax" && p.gating != "sigmoid") {
    throw UserError(fmt::format("{}: routing.gating '{}'", origin, p.gating), "softmax or sigmoid",
                    "fix routing.gating");
  }
  p.rope_freq_base = optional_field<double>(j, "rope_freq_base", 10000.0, origin);
  p.rms_eps = optional_field<double>(j, "rms_eps", 1e-6, origin);
  p.rope_scaling = parse_rope_scaling(j, origin);
  if (j.contains("scales") && j["scales"].is_object())
    for (auto& [k, v] : j["scales"].items()) p.scales[k] = v;
  return p;
}

ModelProfile load_model_profile(const std::string& name_or_path) {
  std::filesystem::path path = name_or_path;
  if (!std::filesystem::exists(path)) path = profiles_dir() / "models" / (name_or_path + ".json");
  if (!std::filesystem::exists(path)) {
    throw UserError(fmt::format("unknown model profile '{}'", name_or_path),
                    fmt::format("one of: {}", fmt::join(list_model_profiles(), ", ")),
                    "pick a shipped profile or pass a path to a profile JSON file");
  }
  return parse_model_profile(read_json_file(path, "model profile"), path.string());
}

std::vector<std::string> list_model_profiles() {
  std::vector<std::string> names;
  const auto dir = profiles_dir() / "models";
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

ParamCount count_params(const ModelProfile& profile) {
  const ModelShape& m = profile.shape;
  ParamCount c;
  c.embedding = m.vocab * m.hidden;
  c.output = m.vocab * m.hidden;
  c.norms = m.hidden;  // output_norm
  for (int64_t il = 0; il < m.layers; ++il) {
    c.norms += 2 * m.hidden;  // attn_norm, ffn_norm
    if (m.is_mla()) {
      const int64_t qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
      const int64_t q = m.q_lora_rank > 0 ? m.hidden * m.q_lora_rank + m.q_lora_rank * m.heads * qk
                                          : m.hidden * m.heads * qk;
      c.attention += q + m.hidden * (m.kv_lora_rank + m.qk_rope_head_dim) +
                     m.qk_nope_head_dim * m.kv_lora_rank * m.heads +
                     m.kv_lora_rank * m.v_head_dim * m.heads + m.heads * m.v_head_dim * m.hidden;
      c.norms += m.kv_lora_rank + m.q_lora_rank;
    } else {
      c.attention += 2 * m.hidden * m.heads * m.head_dim + 2 * m.hidden * m.kv_heads * m.head_dim;
    }
    if (m.is_moe_layer(il)) {
      c.router += m.hidden * m.experts;
      c.routed_experts += 3 * m.hidden * m.expert_ff * m.experts;
      c.shared_experts += 3 * m.hidden * m.expert_ff * m.shared_experts;
    } else {
      c.dense_ffn += 3 * m.hidden * m.dense_ff;
    }
  }
  c.total = c.embedding + c.output + c.norms + c.attention + c.router + c.routed_experts +
            c.shared_experts + c.dense_ffn;
  // Routed experts total n_expert whole experts per MoE layer, so the division is exact.
  c.active = c.total - c.embedding - c.routed_experts +
             (m.experts > 0 ? c.routed_experts / m.experts * m.experts_used : 0);
  return c;
}

namespace {

int64_t round_to(double value, int64_t align) {
  return std::max<int64_t>(align, static_cast<int64_t>(std::llround(value / align)) * align);
}

void override_if(int64_t& field, int64_t value) {
  if (value > 0) field = value;
}

void apply_overrides(ModelShape& m, const ShapeOverrides& o, bool mla) {
  override_if(m.heads, o.heads);
  if (o.heads > 0 && mla) m.kv_heads = o.heads;
  override_if(m.expert_ff, o.expert_ff);
  override_if(m.dense_ff, o.dense_ff);
  override_if(m.vocab, o.vocab);
  override_if(m.experts, o.experts);
  override_if(m.experts_used, o.experts_used);
  override_if(m.q_lora_rank, o.q_lora_rank);
  override_if(m.kv_lora_rank, o.kv_lora_rank);
}

// A preset may fix more than hidden and layers ("expert_ff", "dense_ff",
// "experts", ...): a twin made for one experiment keeps its shape in the profile.
ShapeOverrides preset_overrides(const nlohmann::json& preset, const std::string& origin) {
  ShapeOverrides o;
  const std::pair<const char*, int64_t*> keys[] = {{"heads", &o.heads},
                                                   {"expert_ff", &o.expert_ff},
                                                   {"dense_ff", &o.dense_ff},
                                                   {"vocab", &o.vocab},
                                                   {"experts", &o.experts},
                                                   {"experts_used", &o.experts_used},
                                                   {"q_lora_rank", &o.q_lora_rank},
                                                   {"kv_lora_rank", &o.kv_lora_rank}};
  for (const auto& [key, field] : keys) *field = optional_field<int64_t>(preset, key, 0, origin);
  return o;
}

// A scaled twin the engine can load: an MoE layer left, within the engine's
// layer and expert limits, a valid expert choice, whole GQA groups.
void check_scaled_shape(const ModelShape& m, bool mla, bool dense) {
  if (!dense && m.layers <= m.dense_lead_layers) {
    throw UserError(fmt::format("{} layers leave no MoE layer after {} dense-lead layers", m.layers,
                                m.dense_lead_layers),
                    fmt::format("--layers > {}", m.dense_lead_layers),
                    fmt::format("use --layers {} or more", m.dense_lead_layers + 1));
  }
  if (m.layers > engine_limits::kMaxLayers || m.experts > engine_limits::kMaxExperts) {
    throw UserError(fmt::format("a twin of {} layers and {} experts", m.layers, m.experts),
                    fmt::format("at most {} layers (LLAMA_MAX_LAYERS) and {} experts "
                                "(LLAMA_MAX_EXPERTS): the engine cannot load more",
                                engine_limits::kMaxLayers, engine_limits::kMaxExperts),
                    "lower --layers / --experts");
  }
  if (!dense && (m.experts_used > m.experts || m.experts_used <= 0)) {
    throw UserError(fmt::format("experts_used={} with experts={}", m.experts_used, m.experts),
                    "1 <= experts-used <= experts", "fix --experts / --experts-used");
  }
  if (!mla && m.heads % m.kv_heads != 0) {
    throw UserError(
        fmt::format("--heads {} is not a multiple of the {} KV heads", m.heads, m.kv_heads),
        "heads divisible by kv_heads", "choose another --heads");
  }
}

}  // namespace

ModelProfile scale_profile(const ModelProfile& real, const std::string& scale,
                           const ShapeOverrides& o) {
  ModelProfile twin = real;
  ModelShape& m = twin.shape;
  const ModelShape& r = real.shape;
  int64_t hidden = r.hidden, layers = r.layers;
  ShapeOverrides preset;
  if (scale != "full") {
    auto it = real.scales.find(scale);
    if (it == real.scales.end()) {
      std::vector<std::string> names = {"full"};
      for (const auto& [k, v] : real.scales) names.push_back(k);
      throw UserError(fmt::format("model '{}' has no scale preset '{}'", real.name, scale),
                      fmt::format("one of {}", fmt::join(names, ", ")),
                      "pick one of those, or give explicit --hidden/--layers");
    }
    hidden =
        optional_field<int64_t>(it->second, "hidden", r.hidden, real.name + " scales." + scale);
    layers =
        optional_field<int64_t>(it->second, "layers", r.layers, real.name + " scales." + scale);
    preset = preset_overrides(it->second, real.name + " scales." + scale);
  }
  if (o.hidden > 0) hidden = o.hidden;
  if (o.layers > 0) layers = o.layers;
  if (hidden % 256 != 0 || hidden <= 0) {
    throw UserError(fmt::format("--hidden {} is not a positive multiple of 256", hidden),
                    "a multiple of 256 (the engine's K-quant block)", "use e.g. --hidden 1024");
  }
  const double f = static_cast<double>(hidden) / r.hidden;
  m.hidden = hidden;
  m.layers = layers;
  if (f != 1.0) {
    m.heads =
        r.is_mla() ? round_to(r.heads * f, 4) : std::max<int64_t>(1, std::llround(r.heads * f));
    const int64_t group = std::max<int64_t>(1, r.heads / std::max<int64_t>(1, r.kv_heads));
    m.kv_heads = r.is_mla() ? m.heads : std::max<int64_t>(1, m.heads / group);
    if (!r.is_mla()) m.heads = m.kv_heads * group;
    if (r.q_lora_rank > 0) m.q_lora_rank = round_to(r.q_lora_rank * f, 256);
    if (r.expert_ff > 0) m.expert_ff = round_to(r.expert_ff * f, 256);
    if (r.dense_ff > 0) m.dense_ff = round_to(r.dense_ff * f, 256);
    // The embedding and output head exist once per model while the rest is
    // per layer: shrink the vocabulary with the layer count as well, or a
    // 2-layer twin would spend most of its bytes on the output head.
    m.vocab = round_to(r.vocab * f * static_cast<double>(layers) / r.layers, 256);
    m.context_length = std::min<int64_t>(r.context_length, 262144);
  }
  const bool dense = r.experts == 0;
  apply_overrides(m, preset, r.is_mla());
  if (!dense) apply_overrides(m, o, r.is_mla());
  // A dense twin has no experts to override: only its widths follow the flags.
  if (dense) apply_overrides(m, {o.layers, o.hidden, o.heads, 0, o.dense_ff, o.vocab}, false);
  check_scaled_shape(m, r.is_mla(), dense);
  if (scale != "full" || f != 1.0) twin.name = real.name;
  return twin;
}

}  // namespace moesweep
