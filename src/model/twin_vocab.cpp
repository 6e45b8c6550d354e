#include "model/twin_vocab.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "gguf.h"
#include "util/error.hpp"

namespace moesweep {
namespace {

constexpr const char* kChatMl =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt "
    "%}{{ '<|im_start|>assistant\\n' }}{% endif %}";

struct GgufFree {
  void operator()(gguf_context* c) const { gguf_free(c); }
};
using GgufPtr = std::unique_ptr<gguf_context, GgufFree>;

GgufPtr open_meta(const std::filesystem::path& path, const std::string& what) {
  gguf_init_params p{/*no_alloc=*/true, /*ctx=*/nullptr};
  gguf_context* c = gguf_init_from_file(path.c_str(), p);
  if (!c) {
    throw UserError(fmt::format("cannot read {} '{}'", what, path.string()),
                    "a GGUF file (the engine tree's models/ggml-vocab-*.gguf)",
                    "point MOESWEEP_VOCAB_DIR at the engine tree's models/ folder");
  }
  return GgufPtr(c);
}

std::filesystem::path vocab_file(const std::string& family) {
  return vocab_dir() / fmt::format("ggml-vocab-{}.gguf", family);
}

void copy_array(gguf_context* dst, const gguf_context* src, int64_t i, const char* key) {
  const size_t n = gguf_get_arr_n(src, i);
  const gguf_type t = gguf_get_arr_type(src, i);
  if (t != GGUF_TYPE_STRING) {
    gguf_set_arr_data(dst, key, t, gguf_get_arr_data(src, i), n);
    return;
  }
  std::vector<const char*> strs(n);
  for (size_t j = 0; j < n; ++j) strs[j] = gguf_get_arr_str(src, i, j);
  gguf_set_arr_str(dst, key, strs.data(), n);
}

void copy_key(gguf_context* dst, const gguf_context* src, int64_t i) {
  const char* key = gguf_get_key(src, i);
  switch (gguf_get_kv_type(src, i)) {
    case GGUF_TYPE_UINT8:
      gguf_set_val_u8(dst, key, gguf_get_val_u8(src, i));
      break;
    case GGUF_TYPE_INT8:
      gguf_set_val_i8(dst, key, gguf_get_val_i8(src, i));
      break;
    case GGUF_TYPE_UINT16:
      gguf_set_val_u16(dst, key, gguf_get_val_u16(src, i));
      break;
    case GGUF_TYPE_INT16:
      gguf_set_val_i16(dst, key, gguf_get_val_i16(src, i));
      break;
    case GGUF_TYPE_UINT32:
      gguf_set_val_u32(dst, key, gguf_get_val_u32(src, i));
      break;
    case GGUF_TYPE_INT32:
      gguf_set_val_i32(dst, key, gguf_get_val_i32(src, i));
      break;
    case GGUF_TYPE_FLOAT32:
      gguf_set_val_f32(dst, key, gguf_get_val_f32(src, i));
      break;
    case GGUF_TYPE_UINT64:
      gguf_set_val_u64(dst, key, gguf_get_val_u64(src, i));
      break;
    case GGUF_TYPE_INT64:
      gguf_set_val_i64(dst, key, gguf_get_val_i64(src, i));
      break;
    case GGUF_TYPE_FLOAT64:
      gguf_set_val_f64(dst, key, gguf_get_val_f64(src, i));
      break;
    case GGUF_TYPE_BOOL:
      gguf_set_val_bool(dst, key, gguf_get_val_bool(src, i));
      break;
    case GGUF_TYPE_STRING:
      gguf_set_val_str(dst, key, gguf_get_val_str(src, i));
      break;
    case GGUF_TYPE_ARRAY:
      copy_array(dst, src, i, key);
      break;
    default:
      break;
  }
}

}  // namespace

std::string tokenizer_for_arch(const std::string& arch) {
  if (arch == "deepseek2") return "deepseek-llm";
  if (arch == "llama4") return "llama-bpe";
  if (arch == "qwen3moe") return "qwen2";
  throw UserError(fmt::format("no tokenizer is known for architecture '{}'", arch),
                  "deepseek2, llama4 or qwen3moe (the families with a vocab file)",
                  "serve a model of one of those families, or a real GGUF");
}

std::filesystem::path vocab_dir() {
  if (const char* env = std::getenv("MOESWEEP_VOCAB_DIR"); env && *env) return env;
  return MOESWEEP_VOCAB_DIR;
}

void make_servable(TwinSpec& spec) {
  spec.tokenizer = tokenizer_for_arch(spec.profile.arch);
  const GgufPtr v = open_meta(vocab_file(spec.tokenizer), "the vocab file");
  const int64_t id = gguf_find_key(v.get(), "tokenizer.ggml.tokens");
  if (id < 0) {
    throw UserError(
        fmt::format("'{}' has no tokenizer.ggml.tokens", vocab_file(spec.tokenizer).string()),
        "a vocab-only GGUF with a token list", "use the engine tree's models/ folder");
  }
  spec.profile.shape.vocab = static_cast<int64_t>(gguf_get_arr_n(v.get(), id));
}

void add_twin_tokenizer(gguf_context* meta, const TwinSpec& spec) {
  if (spec.tokenizer.empty()) return;
  const GgufPtr v = open_meta(vocab_file(spec.tokenizer), "the vocab file");
  for (int64_t i = 0; i < gguf_get_n_kv(v.get()); ++i)
    if (std::string(gguf_get_key(v.get(), i)).rfind("tokenizer.", 0) == 0)
      copy_key(meta, v.get(), i);
  if (gguf_find_key(meta, "tokenizer.chat_template") < 0)
    gguf_set_val_str(meta, "tokenizer.chat_template", kChatMl);
}

}  // namespace moesweep
