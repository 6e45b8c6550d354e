#pragma once
// `moesweep inspect`'s output: the model's shape, its tensors against what the
// architecture ships, bytes per tensor group, expert and KV token, the active
// bytes per decoded token and the decode ceilings they imply; or all of it as
// JSON.
#include <cstdint>

#include "model/gguf_inspect.hpp"

namespace moesweep::cli {

// tensors: also list every tensor.
void print_inspection(const GgufInspection& m, const ActiveBytes& a, int64_t depth, ggml_type tk,
                      ggml_type tv, bool tensors);
void print_inspection_json(const GgufInspection& m, const ActiveBytes& a, int64_t depth,
                           ggml_type tk, ggml_type tv, bool tensors);

}  // namespace moesweep::cli
