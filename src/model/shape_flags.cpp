#include "model/shape_flags.hpp"

namespace moesweep {

const std::vector<ShapeFlag>& twin_shape_flags() {
  using S = ShapeOverrides;
  // clang-format off
  static const std::vector<ShapeFlag> flags = {
      {"layers", "--layers", &S::layers, "twin override: layers", nullptr},
      {"hidden", "--hidden", &S::hidden, "twin override: hidden size (multiple of 256)", nullptr},
      {"heads", "--heads", &S::heads, "twin override: attention heads", nullptr},
      {"dense-ff", "--dense-ff", &S::dense_ff, "twin override: dense FFN size", nullptr},
      {"vocab", "--vocab", &S::vocab, "twin override: vocabulary size", nullptr},
      {"experts", "--experts", &S::experts, "twin override: routed experts per MoE layer",
       "twin axis: routed experts per MoE layer, experts used held fixed (8,16,32 or "
       "auto-l3:0.25-16 = total routed-expert bytes per layer from 0.25x to 16x this machine's L3)"},
      {"experts-used", "--experts-used", &S::experts_used, "twin override: experts used per token",
       nullptr},
      {"expert-ff", "--expert-ff", &S::expert_ff, "twin override: routed expert FFN size",
       "twin axis: expert FFN size(s)"},
  };
  // clang-format on
  return flags;
}

}  // namespace moesweep
