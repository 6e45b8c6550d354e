#pragma once
// A synthetic twin: a real model's architecture (scaled), random weights from
// a seed, quantized to one type. Same spec + seed + engine = same bytes.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "model/model_profile.hpp"
#include "model/twin_layout.hpp"

struct gguf_context;

namespace moesweep {

struct TwinSpec {
  ModelProfile profile;          // already scaled (scale_profile)
  std::string scale = "tiny";    // preset name or "full"; "<that>+custom" when overridden
  std::string quant = "Q4_K_S";  // a quant_types() name, upper case
  uint64_t seed = 42;
  std::string tokenizer;    // "" = no vocabulary; else a vocab family (twin_vocab.hpp)
  double routing_skew = 0;  // Zipf exponent of expert popularity (twin_routing.hpp); 0 = random
  TwinLayout layout;  // the GGUF layout its engines read (twin_layout.hpp); set by with_layout

  nlohmann::json to_json() const;  // everything that determines the file's bytes
  std::string cache_key() const;   // sha256 of to_json(), 12 hex chars
  std::string file_stem() const;   // kimi-k2.5-tiny-Q4_K_S-s42-<key>
};

// The one way a twin's spec is made (sweep plan, sweep runner, `synth`): the
// profile scaled by preset and overrides, the quant type's canonical name
// (UserError when unknown), "+custom" on the scale when any shape is overridden.
// `routing_skew` > 0 needs a MoE profile (UserError for a dense one).
TwinSpec twin_spec_for(const std::string& profile, const std::string& scale,
                       const ShapeOverrides& overrides, const std::string& quant, uint64_t seed,
                       double routing_skew = 0);

// `spec` in `layout` (the router's gating with it). UserError when a routing
// skew needs the V3 router's bias and the layout has none.
TwinSpec with_layout(TwinSpec spec, const TwinLayout& layout);

// The twin's GGUF metadata: the keys the converter writes for the arch (and a
// servable twin's tokenizer and chat template), no tensors. Caller frees it.
gguf_context* make_twin_metadata(const TwinSpec& spec);

}  // namespace moesweep
