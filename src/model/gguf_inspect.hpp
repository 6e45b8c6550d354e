#pragma once
// What a GGUF model costs per decoded token, from its headers alone: the
// tensor inventory grouped by role, bytes per routed expert, and the active
// bytes a decode step must stream (non-expert weights + the used share of the
// routed experts + shared experts + the KV cache read at a depth). Reads only
// metadata and tensor infos, never tensor data, so a 13-part 520 GiB model is
// inspected in milliseconds.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ggml.h"
#include "model/arch_tensors.hpp"

namespace moesweep {

enum class TensorGroup {
  kEmbedding,      // token_embd: decode reads one row of it
  kOutput,         // output (lm head)
  kAttention,      // attn_* projections
  kDenseFfn,       // ffn_{gate,up,down} of dense layers
  kRouter,         // ffn_gate_inp, exp_probs_b: read every token by every MoE layer
  kRoutedExperts,  // *_exps: only n_used of n_expert are read per token
  kSharedExperts,  // *_shexp
  kNormsOther,     // norms, biases, anything else
  kMtp,            // next-token-prediction layers, not run by plain decode
};
inline constexpr int kTensorGroupCount = 9;
const char* group_name(TensorGroup g);
TensorGroup classify_tensor(const std::string& name, int mtp_first_block);

struct TensorEntry {
  std::string name;
  ggml_type type = GGML_TYPE_F32;
  std::array<int64_t, 4> ne{1, 1, 1, 1};
  uint64_t bytes = 0;
  TensorGroup group = TensorGroup::kNormsOther;
  int file_index = 0;  // which split part holds it
};

struct GroupTotals {
  int64_t tensors = 0;
  uint64_t bytes = 0;
  uint64_t params = 0;
};

struct GgufInspection {
  std::vector<std::filesystem::path> files;  // every split part, in order
  uint64_t file_bytes = 0;                   // on disk, all parts
  std::string arch, model_name, file_type;
  int64_t n_layer = 0, n_layer_dense_lead = 0, n_nextn = 0;
  int64_t n_embd = 0, n_vocab = 0, n_head = 0, n_ctx_train = 0;
  std::vector<int64_t> n_head_kv;  // per layer (engines allow it to vary)
  int64_t key_length = 0, value_length = 0;
  int64_t kv_lora_rank = 0, q_lora_rank = 0, rope_dim = 0;
  bool mla = false;  // the engine keeps one latent cache row (no V) per token and layer
  int64_t n_expert = 0, n_expert_used = 0, n_expert_shared = 0, expert_ff = 0;
  int64_t moe_every = 1;  // llama4: every n-th layer is MoE
  std::vector<TensorEntry> tensors;
  // The tensor names against what the real architecture ships (arch_tensors.hpp).
  TensorListCheck tensor_check;
  std::array<GroupTotals, kTensorGroupCount> groups{};
  uint64_t tensor_bytes = 0, params = 0;

  const GroupTotals& group(TensorGroup g) const { return groups[static_cast<int>(g)]; }
  int64_t moe_layers() const;
  // One expert of one layer (gate + up + down).
  uint64_t bytes_per_routed_expert() const;
};

struct ActiveBytes {
  uint64_t non_expert = 0;     // attention, dense FFN, router, norms, output, one embedding row
  uint64_t routed_active = 0;  // n_used / n_expert of all routed expert bytes
  uint64_t shared = 0;         // shared experts, read in full
  uint64_t kv = 0;             // KV cache read at `depth`
  uint64_t total() const { return non_expert + routed_active + shared + kv; }
  uint64_t weights() const { return non_expert + routed_active + shared; }
  // Multiply-adds per token (2 FLOP each): the prefill compute side.
  double flops = 0;
};

// Reads every part of a (possibly split) GGUF; throws UserError naming the
// file and the fix when a part is missing, truncated or not GGUF.
GgufInspection inspect_gguf(const std::filesystem::path& path);
ActiveBytes active_bytes_per_token(const GgufInspection& m, int64_t depth, ggml_type type_k,
                                   ggml_type type_v);
// "q8_0" -> GGML_TYPE_Q8_0; UserError listing the names when unknown.
ggml_type parse_cache_type(const std::string& name);
nlohmann::json to_json(const GgufInspection& m, const ActiveBytes& active, int64_t depth);

}  // namespace moesweep
