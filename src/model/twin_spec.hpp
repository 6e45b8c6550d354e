#pragma once
// A synthetic twin: a real model's architecture (scaled), random weights from
// a seed, quantized to one type. Same spec + seed + engine = same bytes.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "model/model_profile.hpp"

struct gguf_context;

namespace moesweep {

struct TwinSpec {
  ModelProfile profile;        // already scaled (scale_profile)
  std::string scale = "tiny";  // preset name, "full", or "custom" when overridden
  std::string quant = "Q4_K_S";
  uint64_t seed = 42;

  nlohmann::json to_json() const;  // everything that determines the file's bytes
  std::string cache_key() const;   // sha256 of to_json(), 12 hex chars
  std::string file_stem() const;   // kimi-k2.5-tiny-Q4_K_S-s42-<key>
};

// The GGUF metadata (keys for the arch + typed tensor entries for the
// skeleton) handed to llama_model_init_from_user. Caller frees it.
gguf_context* make_twin_metadata(const TwinSpec& spec);

}  // namespace moesweep
