#pragma once
// GGUF headers written with ggml's gguf API, data left as a sparse hole: a
// full-size Kimi-K2.5-shaped model (560 GB, 13 parts, gguf-split's keys and
// names) costs a few kilobytes of disk, and inspect must never read the hole.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ggml.h"

namespace moesweep::test {

struct SynthShape {
  int64_t layers = 61, dense_lead = 1, hidden = 7168, heads = 64;
  int64_t q_lora = 1536, kv_lora = 512, nope = 128, rope = 64, v_head = 128;
  int64_t experts = 384, used = 8, shared = 1, expert_ff = 2048, dense_ff = 18432;
  int64_t vocab = 163840, nextn = 0;
  ggml_type attn_type = GGML_TYPE_Q8_0, ffn_type = GGML_TYPE_Q6_K, expert_type = GGML_TYPE_Q4_K;
  ggml_type embd_type = GGML_TYPE_Q4_K, output_type = GGML_TYPE_Q6_K;
  // Written over the keys the shape implies (hostile files: a block_count of
  // 0, more experts used than exist); `u64` stores the value as UINT64, else UINT32.
  struct KeyOverride {
    std::string key;  // e.g. "deepseek2.expert_count"
    uint64_t value;
    bool u64 = false;
  };
  std::vector<KeyOverride> key_overrides;
  // Tensor-list damage: names left out, tensors added after the real ones.
  std::vector<std::string> drop;
  struct Extra {
    std::string name;
    std::vector<int64_t> ne;
  };
  std::vector<Extra> extra;  // written as F32
};

struct SynthTensor {
  std::string name;
  ggml_type type;
  std::vector<int64_t> ne;
  uint64_t bytes() const;
};

// A 3-layer Kimi-shaped model (1 dense lead, 16 experts): headers of a few KiB.
SynthShape small_synth_shape();

// The real DeepSeek-V3/Kimi layout (drop/extra not applied).
std::vector<SynthTensor> deepseek2_tensors(const SynthShape& s);
// Writes the model as `parts` files: <dir>/<stem>.gguf for 1 part, else
// <dir>/<stem>-0000N-of-0000M.gguf; returns the paths in order.
std::vector<std::filesystem::path> write_synthetic_gguf(const std::filesystem::path& dir,
                                                        const std::string& stem,
                                                        const SynthShape& s, int parts = 1);

}  // namespace moesweep::test
