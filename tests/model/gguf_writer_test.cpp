// The streaming GGUF writer against ggml's own reader: the bytes a producer
// gives land where the tensor infos say, for types of different block sizes
// and alignments; a producer that gives the wrong count and an unwritable
// path are errors, not a broken file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "gguf.h"
#include "model/gguf_writer.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using GgufPtr = std::unique_ptr<gguf_context, decltype(&gguf_free)>;

GgufPtr empty_meta() {
  GgufPtr g(gguf_init_empty(), &gguf_free);
  gguf_set_val_str(g.get(), "general.architecture", "test");
  gguf_set_val_u32(g.get(), "test.block_count", 7);
  return g;
}

// Byte i of tensor t is (t * 31 + i) mod 251: every tensor and offset differs.
std::vector<uint8_t> pattern(size_t tensor, uint64_t bytes) {
  std::vector<uint8_t> out(bytes);
  for (uint64_t i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>((tensor * 31 + i) % 251);
  return out;
}

const std::vector<GgufTensorInfo> kTensors = {
    {"a.weight", GGML_TYPE_F32, {5}},           // 20 bytes: the next one needs padding
    {"b.weight", GGML_TYPE_Q4_0, {64, 3}},      // 2 blocks of 18 bytes per row
    {"c.weight", GGML_TYPE_Q8_0, {32, 2, 4}},   // 3 dims
    {"d.weight", GGML_TYPE_F16, {7, 1, 1, 2}},  // 4 dims, odd row
};

TEST(GgufWriter, ReaderFindsEveryTensorsBytesAndTheKeys) {
  const std::filesystem::path path = test::scratch_dir() / "w.gguf";
  GgufPtr meta = empty_meta();
  write_gguf_streamed(path, meta.get(), kTensors, [](size_t i, const ByteSink& sink) {
    const std::vector<uint8_t> bytes = pattern(i, kTensors[i].bytes());
    const size_t half = bytes.size() / 2;  // in two pieces: a sink takes any split
    sink(bytes.data(), half);
    sink(bytes.data() + half, bytes.size() - half);
  });

  ggml_context* data = nullptr;
  gguf_init_params params{/*no_alloc=*/false, &data};
  GgufPtr g(gguf_init_from_file(path.c_str(), params), &gguf_free);
  ASSERT_TRUE(g);
  std::unique_ptr<ggml_context, decltype(&ggml_free)> owned(data, &ggml_free);
  EXPECT_EQ(gguf_get_val_u32(g.get(), gguf_find_key(g.get(), "test.block_count")), 7u);
  ASSERT_EQ(gguf_get_n_tensors(g.get()), static_cast<int64_t>(kTensors.size()));
  for (size_t i = 0; i < kTensors.size(); ++i) {
    SCOPED_TRACE(kTensors[i].name);
    const ggml_tensor* t = ggml_get_tensor(data, kTensors[i].name.c_str());
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->type, kTensors[i].type);
    EXPECT_EQ(ggml_nbytes(t), kTensors[i].bytes());
    const std::vector<uint8_t> want = pattern(i, kTensors[i].bytes());
    EXPECT_EQ(std::memcmp(t->data, want.data(), want.size()), 0);
  }
  // Each tensor padded to the alignment, the last one too.
  const uint64_t end = gguf_get_data_offset(g.get()) + gguf_get_tensor_offset(g.get(), 3) +
                       gguf_get_tensor_size(g.get(), 3);
  EXPECT_EQ(std::filesystem::file_size(path), (end + 31) / 32 * 32);
}

TEST(GgufWriter, AProducerGivingTheWrongByteCountIsAnError) {
  GgufPtr meta = empty_meta();
  EXPECT_THROW(write_gguf_streamed(test::scratch_dir() / "short.gguf", meta.get(), kTensors,
                                   [](size_t, const ByteSink& sink) {
                                     const uint8_t one = 1;
                                     sink(&one, 1);
                                   }),
               std::logic_error);
}

TEST(GgufWriter, AnUnwritablePathIsAUserError) {
  GgufPtr meta = empty_meta();
  try {
    write_gguf_streamed("/proc/nope/x.gguf", meta.get(), kTensors, [](size_t, const ByteSink&) {});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("cannot write '/proc/nope/x.gguf'"), std::string::npos)
        << e.problem();
  }
}

}  // namespace
}  // namespace moesweep
