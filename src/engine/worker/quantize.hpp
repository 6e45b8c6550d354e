#pragma once
#include <nlohmann/json.hpp>

namespace moesweep::worker {

// The "quantize" request: llama_model_quantize of `in` to `out` at `ftype`
// (allow_requantize), the engine's warnings returned as "log".
nlohmann::json quantize_reply(const nlohmann::json& request);

}  // namespace moesweep::worker
