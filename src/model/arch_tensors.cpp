#include "model/arch_tensors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "model/model_profile.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using R = TensorRole;

class TensorList {
 public:
  explicit TensorList(std::vector<ArchTensor>& out) : out_(out) {}
  void global(const std::string& name, std::vector<int64_t> ne, R role = R::kWeight) {
    out_.push_back({name, std::move(ne), role});
  }
  void layer(int64_t il, const std::string& name, std::vector<int64_t> ne, R role = R::kWeight) {
    out_.push_back({fmt::format("blk.{}.{}", il, name), std::move(ne), role});
  }

 private:
  std::vector<ArchTensor>& out_;
};

void add_embedding_and_head(TensorList& t, const ArchDims& d) {
  t.global("token_embd.weight", {d.hidden, d.vocab});
  t.global("output_norm.weight", {d.hidden}, R::kNorm);
  if (!d.tied_output) t.global("output.weight", {d.hidden, d.vocab});
  // One table for all layers (the loader shares it), half the head width.
  if (d.rope_freqs) t.global("rope_freqs.weight", {d.head_dim / 2}, R::kRopeFreqs);
}

void add_dense_ffn(TensorList& t, const ArchDims& d, int64_t il) {
  t.layer(il, "ffn_gate.weight", {d.hidden, d.dense_ff});
  t.layer(il, "ffn_up.weight", {d.hidden, d.dense_ff});
  t.layer(il, "ffn_down.weight", {d.dense_ff, d.hidden});
}

// Router, routed experts (gate and up apart, as the converters write them), shared experts.
void add_moe_ffn(TensorList& t, const ArchDims& d, int64_t il) {
  t.layer(il, "ffn_gate_inp.weight", {d.hidden, d.experts}, R::kRouter);
  if (d.router_bias) t.layer(il, "exp_probs_b.bias", {d.experts}, R::kRouterBias);
  t.layer(il, "ffn_gate_exps.weight", {d.hidden, d.expert_ff, d.experts});
  t.layer(il, "ffn_up_exps.weight", {d.hidden, d.expert_ff, d.experts});
  t.layer(il, "ffn_down_exps.weight", {d.expert_ff, d.hidden, d.experts});
  if (d.shared_experts == 0) return;
  const int64_t shared_ff = d.expert_ff * d.shared_experts;
  t.layer(il, "ffn_gate_shexp.weight", {d.hidden, shared_ff});
  t.layer(il, "ffn_up_shexp.weight", {d.hidden, shared_ff});
  t.layer(il, "ffn_down_shexp.weight", {shared_ff, d.hidden});
}

// MLA as the converter stores it: low-rank q, the joint latent kv_a (+ rope
// part), and kv_b split into k_b (transposed) and v_b per head.
void add_mla_attention(TensorList& t, const ArchDims& d, int64_t il) {
  const int64_t qk = d.qk_nope + d.qk_rope;
  t.layer(il, "attn_norm.weight", {d.hidden}, R::kNorm);
  if (d.q_lora > 0) t.layer(il, "attn_q_a_norm.weight", {d.q_lora}, R::kNorm);
  t.layer(il, "attn_kv_a_norm.weight", {d.kv_lora}, R::kNorm);
  if (d.q_lora > 0) {
    t.layer(il, "attn_q_a.weight", {d.hidden, d.q_lora});
    t.layer(il, "attn_q_b.weight", {d.q_lora, d.heads * qk});
  } else {
    t.layer(il, "attn_q.weight", {d.hidden, d.heads * qk});
  }
  t.layer(il, "attn_kv_a_mqa.weight", {d.hidden, d.kv_lora + d.qk_rope});
  if (d.mla_split) {
    t.layer(il, "attn_k_b.weight", {d.qk_nope, d.kv_lora, d.heads});
    t.layer(il, "attn_v_b.weight", {d.kv_lora, d.v_head, d.heads});
  } else {
    t.layer(il, "attn_kv_b.weight", {d.kv_lora, d.heads * (d.qk_nope + d.v_head)});
  }
  t.layer(il, "attn_output.weight", {d.heads * d.v_head, d.hidden});
}

void add_gqa_attention(TensorList& t, const ArchDims& d, int64_t il, bool qk_norm) {
  t.layer(il, "attn_norm.weight", {d.hidden}, R::kNorm);
  t.layer(il, "attn_q.weight", {d.hidden, d.heads * d.head_dim});
  t.layer(il, "attn_k.weight", {d.hidden, d.kv_heads * d.head_dim});
  t.layer(il, "attn_v.weight", {d.hidden, d.kv_heads * d.head_dim});
  t.layer(il, "attn_output.weight", {d.heads * d.head_dim, d.hidden});
  if (qk_norm) {  // Qwen3: RMS norm per head on q and k
    t.layer(il, "attn_q_norm.weight", {d.head_dim}, R::kNorm);
    t.layer(il, "attn_k_norm.weight", {d.head_dim}, R::kNorm);
  }
}

}  // namespace

bool ArchDims::is_moe_layer(int64_t il) const {
  if (experts == 0 || il < dense_lead) return false;
  return moe_every <= 1 || (il + 1) % moe_every == 0;
}

bool has_arch_tensor_list(const std::string& arch) {
  return arch == "deepseek2" || arch == "qwen3moe" || arch == "llama4" || arch == "llama";
}

ArchDims arch_dims_of(const ModelProfile& p) {
  const ModelShape& m = p.shape;
  ArchDims d;
  d.arch = p.arch;
  d.layers = m.layers;
  d.dense_lead = m.dense_lead_layers;
  d.moe_every = m.moe_every;
  d.hidden = m.hidden;
  d.heads = m.heads;
  d.kv_heads = m.kv_heads;
  d.head_dim = m.head_dim;
  d.q_lora = m.q_lora_rank;
  d.kv_lora = m.kv_lora_rank;
  d.qk_nope = m.qk_nope_head_dim;
  d.qk_rope = m.qk_rope_head_dim;
  d.v_head = m.v_head_dim;
  d.experts = m.experts;
  d.shared_experts = p.arch == "qwen3moe" ? 0 : m.shared_experts;  // Qwen3-MoE has none
  d.expert_ff = m.expert_ff;
  d.dense_ff = m.dense_ff;
  d.vocab = m.vocab;
  // DeepSeek-V3's sigmoid router carries e_score_correction_bias (exp_probs_b); V2's softmax one
  // does not.
  d.router_bias = p.arch == "deepseek2" && p.gating == "sigmoid";
  d.rope_freqs = p.rope_scaling.ships_rope_freqs();
  return d;
}

std::vector<ArchTensor> arch_tensors(const ArchDims& d) {
  if (!has_arch_tensor_list(d.arch)) {
    throw UserError(fmt::format("no tensor list is known for architecture '{}'", d.arch),
                    "deepseek2, qwen3moe, llama4 or llama", "use a profile of one of those");
  }
  std::vector<ArchTensor> out;
  TensorList t(out);
  add_embedding_and_head(t, d);
  for (int64_t il = 0; il < d.layers; ++il) {
    if (d.arch == "deepseek2")
      add_mla_attention(t, d, il);
    else
      add_gqa_attention(t, d, il, d.arch == "qwen3moe");
    t.layer(il, "ffn_norm.weight", {d.hidden}, R::kNorm);
    if (d.is_moe_layer(il))
      add_moe_ffn(t, d, il);
    else
      add_dense_ffn(t, d, il);
  }
  return out;
}

bool ships_fused_gate_up_experts(const ModelProfile& profile) {
  if (!has_arch_tensor_list(profile.arch)) return false;
  const std::string fused = ".ffn_gate_up_exps.weight";
  for (const ArchTensor& t : arch_tensors(arch_dims_of(profile)))
    if (t.name.size() > fused.size() && t.name.ends_with(fused)) return true;
  return false;
}

namespace {

std::set<std::string> names_of(const ArchDims& d) {
  std::set<std::string> s;
  for (const ArchTensor& t : arch_tensors(d)) s.insert(t.name);
  return s;
}

int64_t block_of(const std::string& name) {
  return name.rfind("blk.", 0) == 0 ? std::atoll(name.c_str() + 4) : -1;
}

// A fused ffn_gate_up_exps stands for the layer's ffn_gate_exps and ffn_up_exps.
bool covered_by_fused(const std::string& name, const std::set<std::string>& file) {
  for (const char* part : {".ffn_gate_exps.weight", ".ffn_up_exps.weight"}) {
    const size_t at = name.find(part);
    if (at != std::string::npos && at + std::string(part).size() == name.size())
      return file.count(name.substr(0, at) + ".ffn_gate_up_exps.weight") > 0;
  }
  return false;
}

}  // namespace

TensorListCheck check_tensor_names(const std::vector<std::string>& names, ArchDims d,
                                   int64_t first_mtp_block) {
  TensorListCheck c;
  if (!has_arch_tensor_list(d.arch)) return c;
  c.known = true;
  // Required: the list without the family's optional tensors; allowed: with them.
  d.router_bias = d.rope_freqs = false;
  d.tied_output = true;
  const std::set<std::string> required = names_of(d);
  d.router_bias = d.rope_freqs = true;
  d.tied_output = false;
  std::set<std::string> allowed = names_of(d);
  for (int64_t il = 0; il < d.layers; ++il)
    if (d.is_moe_layer(il)) allowed.insert(fmt::format("blk.{}.ffn_gate_up_exps.weight", il));
  const std::set<std::string> file(names.begin(), names.end());
  for (const std::string& n : names) {
    if (first_mtp_block >= 0 && block_of(n) >= first_mtp_block)
      ++c.unchecked;
    else if (!allowed.count(n))
      c.unexpected.push_back(n);
  }
  for (const std::string& n : required)
    if (!file.count(n) && !covered_by_fused(n, file)) c.missing.push_back(n);
  return c;
}

std::string layer_pattern(const std::string& tensor) {
  static const std::regex layer(R"(\.\d+\.)");
  return std::regex_replace(tensor, layer, ".*.");
}

std::string fold_layer_names(const std::vector<std::string>& names) {
  std::map<std::string, int> count;
  std::vector<std::string> order;
  for (const std::string& n : names) {
    const std::string p = layer_pattern(n);
    if (count[p]++ == 0) order.push_back(p);
  }
  std::vector<std::string> parts;
  for (const std::string& p : order)
    parts.push_back(count[p] > 1 ? fmt::format("{} (x{})", p, count[p]) : p);
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace moesweep
