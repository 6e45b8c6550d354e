#pragma once
// Which experts each MoE layer selects, as the engine computes them: the
// engine's eval callback watches the top-k tensors ("ffn_moe_topk-<layer>")
// and hands their ids here, with no engine patch. Plain types only, so the
// code that records and analyses routing never sees llama.h or ggml.h.
#include <cstdint>

namespace moesweep {

class RoutingObserver {
 public:
  virtual ~RoutingObserver() = default;
  // Before each llama_decode call: how many tokens, and whether it is a
  // generation step (one token, logits wanted) or a chunk of prefill.
  virtual void on_decode(int n_tokens, bool generation) = 0;
  // One MoE layer of one micro-batch: ids[t * n_used + k] is token t's k-th
  // selected expert. The last layer of a prefill chunk only computes the
  // tokens whose logits are wanted, so n_tokens can be smaller there.
  virtual void on_routing(int layer, int n_tokens, int n_used, const int32_t* ids) = 0;
  // Whether the tap records now. While it does not, the eval callback asks
  // for no tensor, so the engine computes each graph whole, as untraced
  // (sweep --trace-routing times its TG samples so and takes the routing
  // from a second pass of the same tokens: docs/l3.md, "Per-token").
  virtual bool recording() const { return true; }
};

}  // namespace moesweep
