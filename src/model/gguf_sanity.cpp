#include "model/gguf_sanity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "engine/engine_limits.hpp"
#include "gguf.h"
#include "util/error.hpp"

namespace moesweep {
namespace {

// An integer key as the file holds it: `text` exact (a u64 of 2^64-1 is
// never shown as -1), `value` clamped into int64 for the comparisons.
struct Value {
  bool present = false;
  int64_t value = 0;
  std::string text = "absent";
};

Value from_u64(uint64_t v) {
  const auto max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return {true, static_cast<int64_t>(std::min(v, max)), std::to_string(v)};
}
Value from_i64(int64_t v) {
  return {true, v, std::to_string(v)};
}

bool integer(enum gguf_type t) {
  switch (t) {
    case GGUF_TYPE_UINT8:
    case GGUF_TYPE_INT8:
    case GGUF_TYPE_UINT16:
    case GGUF_TYPE_INT16:
    case GGUF_TYPE_UINT32:
    case GGUF_TYPE_INT32:
    case GGUF_TYPE_UINT64:
    case GGUF_TYPE_INT64:
      return true;
    default:
      return false;
  }
}

Value element(enum gguf_type type, const void* data, size_t i) {
  switch (type) {
    case GGUF_TYPE_UINT8:
      return from_u64(static_cast<const uint8_t*>(data)[i]);
    case GGUF_TYPE_INT8:
      return from_i64(static_cast<const int8_t*>(data)[i]);
    case GGUF_TYPE_UINT16:
      return from_u64(static_cast<const uint16_t*>(data)[i]);
    case GGUF_TYPE_INT16:
      return from_i64(static_cast<const int16_t*>(data)[i]);
    case GGUF_TYPE_UINT32:
      return from_u64(static_cast<const uint32_t*>(data)[i]);
    case GGUF_TYPE_INT32:
      return from_i64(static_cast<const int32_t*>(data)[i]);
    case GGUF_TYPE_UINT64:
      return from_u64(static_cast<const uint64_t*>(data)[i]);
    case GGUF_TYPE_INT64:
      return from_i64(static_cast<const int64_t*>(data)[i]);
    default:
      return {};  // not an integer: the engine's own type check refuses it
  }
}

// The key's value, or the largest element of a per-layer array (the engine
// validates the maximum of expert_used_count the same way).
Value read(const gguf_context* ctx, const std::string& key) {
  const int64_t id = gguf_find_key(ctx, key.c_str());
  if (id < 0) return {};
  const enum gguf_type type = gguf_get_kv_type(ctx, id);
  // gguf_get_val_data/gguf_get_arr_data assert on strings: only integers get there.
  if (type != GGUF_TYPE_ARRAY)
    return integer(type) ? element(type, gguf_get_val_data(ctx, id), 0) : Value{};
  if (!integer(gguf_get_arr_type(ctx, id))) return {};
  Value best;
  const void* data = gguf_get_arr_data(ctx, id);
  for (size_t i = 0; i < gguf_get_arr_n(ctx, id); ++i) {
    const Value v = element(gguf_get_arr_type(ctx, id), data, i);
    if (v.present && (!best.present || v.value > best.value)) best = v;
  }
  return best;
}

}  // namespace

std::string gguf_text_key(const gguf_context* ctx, const char* key) {
  const int64_t id = gguf_find_key(ctx, key);
  return id >= 0 && gguf_get_kv_type(ctx, id) == GGUF_TYPE_STRING ? gguf_get_val_str(ctx, id) : "";
}

void check_engine_hparams(const gguf_context* meta, const std::string& file) {
  const std::string a = gguf_text_key(meta, "general.architecture") + ".";
  const Value layers = read(meta, a + "block_count");
  const Value nextn = read(meta, a + "nextn_predict_layers");
  const Value experts = read(meta, a + "expert_count");
  const Value used = read(meta, a + "expert_used_count");
  const Value groups = read(meta, a + "expert_group_count");
  const Value group_used = read(meta, a + "expert_group_used_count");
  auto refuse = [&](const std::string& what, const std::string& rule) {
    throw UserError(fmt::format("'{}': {}", file, what),
                    fmt::format("{} (the engine aborts the process on anything else)", rule),
                    "the file's metadata is damaged or was written by a broken converter: "
                    "download or convert it again, or fix the key with gguf-py's "
                    "gguf_set_metadata.py");
  };
  const int64_t kMaxLayers = engine_limits::kMaxLayers, kMaxExperts = engine_limits::kMaxExperts;
  if (layers.present && (layers.value < 1 || layers.value > kMaxLayers))
    refuse(fmt::format("{}block_count is {}", a, layers.text),
           fmt::format("1 <= block_count <= {} (LLAMA_MAX_LAYERS)", kMaxLayers));
  if (nextn.present && (nextn.value < 0 || (layers.present && nextn.value > layers.value)))
    refuse(
        fmt::format("{}nextn_predict_layers is {} with block_count {}", a, nextn.text, layers.text),
        "0 <= nextn_predict_layers <= block_count");
  // The layer rules above also bound inspect's loops; the expert rules only
  // spare the engine. MOESWEEP_SKIP_GGUF_PRECHECK=1 lets such a file reach it:
  // the crash-isolation tests make the real engine abort this way.
  if (const char* skip = std::getenv("MOESWEEP_SKIP_GGUF_PRECHECK"); skip && *skip == '1') return;
  if (experts.present && (experts.value < 0 || experts.value > kMaxExperts))
    refuse(fmt::format("{}expert_count is {}", a, experts.text),
           fmt::format("0 <= expert_count <= {} (LLAMA_MAX_EXPERTS)", kMaxExperts));
  const int64_t n_expert = experts.present ? experts.value : 0;
  if (n_expert == 0 && ((used.present && used.value != 0) || (groups.present && groups.value != 0)))
    refuse(fmt::format("{}expert_count is {} but expert_used_count is {} (expert_group_count {})",
                       a, experts.text, used.text, groups.text),
           "a dense model (no experts) uses no experts and has no expert groups");
  if (n_expert == 0) return;
  if (!used.present || used.value < 1 || used.value > n_expert)
    refuse(
        fmt::format("{}expert_used_count is {} with expert_count {}", a, used.text, experts.text),
        "1 <= expert_used_count <= expert_count");
  const int64_t n_groups = groups.present ? groups.value : 0;
  if (n_groups < 0 || n_groups >= n_expert)
    refuse(fmt::format("{}expert_group_count is {} with expert_count {}", a, groups.text,
                       experts.text),
           "0 <= expert_group_count < expert_count");
  if (n_groups > 1 && (n_expert % n_groups != 0 || !group_used.present || group_used.value < 1 ||
                       group_used.value >= n_groups))
    refuse(fmt::format("{}expert_group_count is {}, expert_group_used_count {}, expert_count {}", a,
                       groups.text, group_used.text, experts.text),
           "experts divisible into the groups, 1 <= expert_group_used_count < expert_group_count");
}

void check_engine_hparams(const std::string& path) {
  gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  std::unique_ptr<gguf_context, decltype(&gguf_free)> ctx(gguf_init_from_file(path.c_str(), params),
                                                          &gguf_free);
  if (ctx) check_engine_hparams(ctx.get(), path);
}

}  // namespace moesweep
