#pragma once
// ik_llama.cpp's MoE and attention switches, which mainline llama.cpp does
// not have: -fmoe (fused MoE up/gate), -rtr (repack the weights at load),
// -mla (the MLA implementation of DeepSeek-style attention) and -amb (the
// attention's largest batch, MiB). A sweep sets them once; they reach only
// the engines of kind ik_llama.cpp, and every record of such an engine names
// them (PointParams::engine_opts). -1 = not set: the engine's own default.
#include <string>

namespace moesweep {

struct EngineKnobs {
  int fused_moe = -1;       // -fmoe 0|1   (ik default: 1)
  int repack = -1;          // -rtr 0|1    (ik default: 0; 1 loads without mmap)
  int mla = -1;             // -mla 0..3   (ik default: 3)
  int attn_max_batch = -1;  // -amb MiB, 0 = no limit (ik default: 256)

  bool any() const { return fused_moe >= 0 || repack >= 0 || mla >= 0 || attn_max_batch >= 0; }
  bool operator==(const EngineKnobs&) const = default;
};

// The engine kind that has these switches.
inline constexpr const char* kIkLlamaKind = "ik_llama.cpp";

// "fmoe=1 rtr=0 mla=3 amb=256": the switches that are set, in ik_llama.cpp's
// own flag names; "" when none is.
std::string knobs_text(const EngineKnobs& k);
// The first switch that is set, as its flag ("-fmoe"); "" when none is.
std::string first_knob_flag(const EngineKnobs& k);

}  // namespace moesweep
