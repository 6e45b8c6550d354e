#pragma once
// The tensors a real model of each twin architecture ships, named and shaped
// as the engine's converter writes them (conversion/deepseek.py, qwen.py,
// llama.py, llama4.py) and as both engines' loaders read them. A twin is
// written with exactly this list; `inspect` compares a GGUF with it.
//
// Not in any list: the optional tensors an engine would also accept but the
// real models do not ship (`.scale` and `.input_scale` per weight, q/k/v
// biases, the fused ffn_gate_up_exps). v0.4.0 multiplies a matmul by a
// present `.scale`, and ik_llama.cpp counts every tensor of the file, so a
// twin with them has neither the real graph nor loads everywhere.
#include <cstdint>
#include <string>
#include <vector>

namespace moesweep {

struct ModelProfile;

enum class TensorRole {
  kWeight,      // a matrix or a stack of expert matrices: random rows, quantized
  kRouter,      // ffn_gate_inp: F32, as the quantizer keeps it
  kNorm,        // RMS norm weights (~1)
  kRouterBias,  // exp_probs_b: the per-expert selection bias (0, or the routing skew)
  kRopeFreqs,   // rope_freqs: Llama 3.1-style frequency factors, computed
};

struct ArchTensor {
  std::string name;
  std::vector<int64_t> ne;  // ggml order: the row length first
  TensorRole role = TensorRole::kWeight;
};

// Every dimension and choice the list depends on.
struct ArchDims {
  std::string arch;
  int64_t layers = 0, dense_lead = 0, moe_every = 1;
  int64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int64_t q_lora = 0, kv_lora = 0, qk_nope = 0, qk_rope = 0, v_head = 0;
  int64_t experts = 0, shared_experts = 0, expert_ff = 0, dense_ff = 0, vocab = 0;
  bool router_bias = false;  // deepseek2 with sigmoid gating (V3, Kimi) ships exp_probs_b
  bool rope_freqs = false;   // Llama 3.1-style rope scaling ships rope_freqs.weight
  bool tied_output = false;  // no output.weight: the embedding doubles as the head
  bool mla_split = true;     // deepseek2: attn_k_b + attn_v_b (else the legacy attn_kv_b)

  bool is_moe_layer(int64_t il) const;
};

bool has_arch_tensor_list(const std::string& arch);
// The profile's dims (router bias from sigmoid gating, rope_freqs from its rope scaling).
ArchDims arch_dims_of(const ModelProfile& profile);
// The tensor list of `d.arch`; UserError for an arch without one.
std::vector<ArchTensor> arch_tensors(const ArchDims& d);

// The model's routed experts as its files lay them out: one fused
// ffn_gate_up_exps per MoE layer when its architecture's list ships one (the
// engine then reads gate and up as one matrix), else gate and up apart (an
// architecture without a list: the converter's default, apart too).
bool ships_fused_gate_up_experts(const ModelProfile& profile);

// A file's tensor names against its architecture's list.
struct TensorListCheck {
  bool known = false;                   // the arch has a list (else nothing was compared)
  std::vector<std::string> unexpected;  // in the file, not shipped by the real architecture
  std::vector<std::string> missing;     // required by the list, absent from the file
  int64_t unchecked = 0;                // tensors of MTP blocks, not compared
};

// `d`: the dims read from the file's metadata. What real files of the family
// may or may not have (exp_probs_b, rope_freqs, a tied output, a fused
// ffn_gate_up_exps in place of ffn_gate_exps + ffn_up_exps) is neither
// unexpected nor missing. Blocks from `first_mtp_block` on are not compared.
TensorListCheck check_tensor_names(const std::vector<std::string>& names, ArchDims d,
                                   int64_t first_mtp_block = -1);

// "blk.12.ffn_down_exps.weight" -> "blk.*.ffn_down_exps.weight"
std::string layer_pattern(const std::string& tensor);
// "blk.*.attn_q.scale (x4), output.scale": names folded over their layers.
std::string fold_layer_names(const std::vector<std::string>& names);

}  // namespace moesweep
