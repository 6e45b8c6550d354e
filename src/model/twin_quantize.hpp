#pragma once
// The one engine call of a twin build: requantizing the skeleton (written by
// our own code, twin_skeleton.hpp) to the asked type with the engine's own
// per-tensor rules (llama_model_quantize), in an engine worker. The engine's
// per-tensor warnings go to `log`.
#include <filesystem>

namespace moesweep {

// `ftype`: a llama_ftype value (QuantType::ftype). UserError when the engine
// refuses; `out` is then removed.
void quantize_twin(const std::filesystem::path& skeleton, const std::filesystem::path& out,
                   int ftype, const std::filesystem::path& log);

}  // namespace moesweep
