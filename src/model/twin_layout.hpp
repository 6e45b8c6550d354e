#pragma once
// Which GGUF layout a twin is written in, so that every engine of a sweep
// loads the same file. Engines differ in what their loaders read (an engine's
// EngineFacts::reads, found in its source at configure time:
// cmake/EngineApi.cmake):
//  - deepseek2's MLA: split attn_k_b/attn_v_b tensors with MQA-style
//    metadata (llama.cpp PR #12801, b5590 on), or the legacy attn_kv_b, which
//    newer engines still load (as plain multi-head attention);
//  - deepseek2's router: DeepSeek-V3's sigmoid with its selection bias
//    exp_probs_b (b4435 on), or V2's softmax without a bias;
//  - deepseek2's rope.scaling.yarn_log_multiplier: required to b5640 (the
//    split layout then carries it too), optional after;
//  - architectures: qwen3moe and llama4 from b5590, deepseek2 throughout.
// A twin takes the newest layout all its engines read; an engine that cannot
// load the architecture at all is left out of that twin's points, with the
// reason.
#include <string>
#include <vector>

namespace moesweep {

struct ModelProfile;

struct TwinLayout {
  bool mla_split = true;      // deepseek2: attn_k_b + attn_v_b; false: the legacy attn_kv_b
  bool v3_router = true;      // deepseek2 with sigmoid gating: exp_probs_b; false: V2's softmax
  bool yarn_log_key = false;  // split deepseek2: also rope.scaling.yarn_log_multiplier (0)

  bool is_newest() const { return mla_split && v3_router && !yarn_log_key; }
  // "" for the newest; else e.g. "legacy attn_kv_b, V2 softmax router".
  std::string describe() const;
  bool operator==(const TwinLayout&) const = default;
};

// What one engine's loader reads (EngineFacts::reads); `known` false for an
// engine that cannot say (another program's binary): it constrains nothing.
struct EngineReads {
  std::string engine;  // its name, for messages
  std::string release;
  std::vector<std::string> reads;
  bool known = true;
  int max_experts = 0;  // routed experts per layer it loads (LLAMA_MAX_EXPERTS); 0 unknown
};

// Why `engine` cannot load a twin of `profile`'s architecture, "" when it can.
std::string cannot_load_reason(const ModelProfile& profile, const EngineReads& engine);

// The newest layout of `profile` every engine in `engines` reads (engines
// that cannot load the architecture at all are the caller's to leave out).
TwinLayout layout_for(const ModelProfile& profile, const std::vector<EngineReads>& engines);

// The layout applied to a profile: V2's softmax gating where the router is V2.
void apply_router_layout(ModelProfile& profile, const TwinLayout& layout);

}  // namespace moesweep
