#pragma once
// A twin's GGUF before the final quantization, written by our code with
// ggml's gguf API: the metadata the converter writes for the real model and
// exactly the real architecture's tensors (arch_tensors.hpp), random rows in a
// compact weight type, streamed to the file. No engine (llama.h) code, and no
// F32 copy of a tensor or of the model is ever held.
#include <filesystem>
#include <functional>

#include "ggml.h"
#include "model/twin_spec.hpp"

namespace moesweep {

struct RoutingSkew;

// `weight_type`: the matrices' type (Q4_0 or Q8_0); `skew`: null for random
// routing. `between_slabs` (may be empty) runs before each ~16 MiB written:
// it may throw to stop the build.
void write_twin_skeleton(const TwinSpec& spec, const RoutingSkew* skew, ggml_type weight_type,
                         const std::filesystem::path& path,
                         const std::function<void()>& between_slabs = {});

}  // namespace moesweep
