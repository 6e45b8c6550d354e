#include "model/gguf_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "gguf.h"
#include "util/error.hpp"

namespace moesweep {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

UserError write_error(const std::filesystem::path& path, int err) {
  return UserError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(err)),
                   "a writable directory with room for the model file",
                   "free disk space or choose another directory (MOESWEEP_CACHE_DIR, --out)");
}

class Output {
 public:
  explicit Output(const std::filesystem::path& path) : path_(path) {
    file_.reset(std::fopen(path.c_str(), "wb"));
    if (!file_) throw write_error(path, errno);
    buffer_.resize(size_t{4} << 20);
    std::setvbuf(file_.get(), buffer_.data(), _IOFBF, buffer_.size());
  }
  void write(const void* data, size_t bytes) {
    if (bytes > 0 && std::fwrite(data, 1, bytes, file_.get()) != bytes)
      throw write_error(path_, errno);
    written_ += bytes;
  }
  void pad_to(size_t alignment) {
    static const char zeros[64] = {};
    while (written_ % alignment != 0)
      write(zeros, std::min<size_t>(sizeof(zeros), alignment - written_ % alignment));
  }
  uint64_t written() const { return written_; }
  void close() {
    const bool ok = std::fflush(file_.get()) == 0 && !std::ferror(file_.get());
    const int err = errno;
    if (std::fclose(file_.release()) != 0 || !ok) throw write_error(path_, ok ? errno : err);
  }

 private:
  std::filesystem::path path_;
  std::vector<char> buffer_;  // declared before file_: outlives its fclose
  File file_;
  uint64_t written_ = 0;
};

// Tensor infos into `meta`: ggml computes the offsets from each type's row size.
void add_tensor_infos(gguf_context* meta, const std::vector<GgufTensorInfo>& tensors) {
  ggml_init_params params{ggml_tensor_overhead() * (tensors.size() + 1), nullptr,
                          /*no_alloc=*/true};
  std::unique_ptr<ggml_context, decltype(&ggml_free)> ctx(ggml_init(params), &ggml_free);
  for (const GgufTensorInfo& t : tensors) {
    ggml_tensor* tensor =
        ggml_new_tensor(ctx.get(), t.type, static_cast<int>(t.ne.size()), t.ne.data());
    ggml_set_name(tensor, t.name.c_str());
    gguf_add_tensor(meta, tensor);  // copies the tensor's fields
  }
}

}  // namespace

uint64_t GgufTensorInfo::bytes() const {
  uint64_t rows = 1;
  for (size_t i = 1; i < ne.size(); ++i) rows *= static_cast<uint64_t>(ne[i]);
  return ggml_row_size(type, ne.at(0)) * rows;
}

void write_gguf_streamed(const std::filesystem::path& path, gguf_context* meta,
                         const std::vector<GgufTensorInfo>& tensors,
                         const TensorProducer& produce) {
  if (gguf_get_n_tensors(meta) != 0)
    throw std::logic_error("write_gguf_streamed: the metadata already holds tensors");
  add_tensor_infos(meta, tensors);
  std::vector<char> header(gguf_get_meta_size(meta));  // padded to the alignment
  gguf_get_meta_data(meta, header.data());
  const size_t alignment = gguf_get_alignment(meta);
  Output out(path);
  out.write(header.data(), header.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const uint64_t start = out.written();
    produce(i, [&out](const void* data, size_t bytes) { out.write(data, bytes); });
    if (out.written() - start != gguf_get_tensor_size(meta, static_cast<int64_t>(i))) {
      throw std::logic_error(fmt::format("tensor '{}': {} bytes produced, {} expected",
                                         tensors[i].name, out.written() - start,
                                         gguf_get_tensor_size(meta, static_cast<int64_t>(i))));
    }
    out.pad_to(alignment);
  }
  out.close();
}

}  // namespace moesweep
