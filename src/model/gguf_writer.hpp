#pragma once
// A GGUF file written with ggml's gguf API without its tensors in memory:
// the header (metadata and tensor infos) first, then each tensor's bytes
// streamed in order, each padded to the file's alignment, exactly where the
// tensor infos say they are. ggml/gguf only: no engine (llama.h) code.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ggml.h"

struct gguf_context;

namespace moesweep {

struct GgufTensorInfo {
  std::string name;
  ggml_type type = GGML_TYPE_F32;
  std::vector<int64_t> ne;  // 1 to 4 dims, row length first
  uint64_t bytes() const;
};

// Receives a tensor's bytes in pieces, in order.
using ByteSink = std::function<void(const void* data, size_t bytes)>;
// Gives tensor `index`'s bytes, exactly GgufTensorInfo::bytes() of them, to `sink`.
using TensorProducer = std::function<void(size_t index, const ByteSink& sink)>;

// Writes `meta`'s keys and `tensors` to `path` (replaced if it exists).
// `meta` must hold no tensor infos yet; it gets them. UserError when the file
// cannot be written (no room, no permission); std::logic_error when a
// producer gives another byte count than its tensor's size.
void write_gguf_streamed(const std::filesystem::path& path, gguf_context* meta,
                         const std::vector<GgufTensorInfo>& tensors, const TensorProducer& produce);

}  // namespace moesweep
