#include "model/gguf_inspect.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>

#include "engine/context_rules.hpp"
#include "gguf.h"
#include "model/gguf_sanity.hpp"
#include "model/kv_cache.hpp"
#include "model/quant_types.hpp"
#include "util/error.hpp"

namespace moesweep {

namespace {

using GgufHandle = std::unique_ptr<gguf_context, decltype(&gguf_free)>;

const std::string kRedownload =
    "download the file again (a partial download or a full disk leaves exactly this), "
    "and check it against the published sha256";

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}
bool contains(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

GgufHandle open_header(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    throw UserError(
        fmt::format("model file '{}' does not exist", path.string()), "a .gguf file",
        "check the path; for a split model every -0000N-of-0000M.gguf part must be there");
  }
  char magic[4] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(magic, 4);
  if (in.gcount() < 4 || std::string(magic, 4) != "GGUF") {
    throw UserError(
        fmt::format("'{}' is not a GGUF file (it does not start with the bytes 'GGUF')",
                    path.string()),
        "a llama.cpp model file in GGUF format",
        "pass the .gguf file itself (not a safetensors/HF folder); if it is one, " + kRedownload);
  }
  gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  GgufHandle ctx(gguf_init_from_file(path.string().c_str(), params), &gguf_free);
  if (!ctx) {
    throw UserError(fmt::format("'{}': the GGUF header is truncated or corrupt", path.string()),
                    "a complete GGUF header (metadata and tensor list)", kRedownload);
  }
  return ctx;
}

int64_t int_value(const gguf_context* ctx, int64_t id) {
  switch (gguf_get_kv_type(ctx, id)) {
    case GGUF_TYPE_UINT8:
      return gguf_get_val_u8(ctx, id);
    case GGUF_TYPE_INT8:
      return gguf_get_val_i8(ctx, id);
    case GGUF_TYPE_UINT16:
      return gguf_get_val_u16(ctx, id);
    case GGUF_TYPE_INT16:
      return gguf_get_val_i16(ctx, id);
    case GGUF_TYPE_UINT32:
      return gguf_get_val_u32(ctx, id);
    case GGUF_TYPE_INT32:
      return gguf_get_val_i32(ctx, id);
    case GGUF_TYPE_UINT64:  // clamped: 2^64-1 must not read as -1
      return static_cast<int64_t>(std::min<uint64_t>(gguf_get_val_u64(ctx, id), INT64_MAX));
    case GGUF_TYPE_INT64:
      return gguf_get_val_i64(ctx, id);
    default:
      return 0;
  }
}

// Integer key, or per-layer array of integers (some engines store head counts
// and FFN sizes per layer); absent -> empty.
std::vector<int64_t> int_values(const gguf_context* ctx, const std::string& key) {
  const int64_t id = gguf_find_key(ctx, key.c_str());
  if (id < 0) return {};
  if (gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY) return {int_value(ctx, id)};
  std::vector<int64_t> out;
  const size_t n = gguf_get_arr_n(ctx, id);
  const void* data = gguf_get_arr_data(ctx, id);
  for (size_t i = 0; i < n; ++i) {
    switch (gguf_get_arr_type(ctx, id)) {
      case GGUF_TYPE_INT32:
        out.push_back(static_cast<const int32_t*>(data)[i]);
        break;
      case GGUF_TYPE_UINT32:
        out.push_back(static_cast<const uint32_t*>(data)[i]);
        break;
      case GGUF_TYPE_INT64:
        out.push_back(static_cast<const int64_t*>(data)[i]);
        break;
      case GGUF_TYPE_UINT64:
        out.push_back(static_cast<int64_t>(
            std::min<uint64_t>(static_cast<const uint64_t*>(data)[i], INT64_MAX)));
        break;
      default:
        return {};
    }
  }
  return out;
}

int64_t int_key(const gguf_context* ctx, const std::string& key, int64_t fallback = 0) {
  auto v = int_values(ctx, key);
  return v.empty() ? fallback : *std::max_element(v.begin(), v.end());
}

// Split models: every part named <prefix>-0000N-of-0000M.gguf, metadata in part 1.
std::vector<std::filesystem::path> split_parts(const std::filesystem::path& path, int64_t count) {
  static const std::regex pattern(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");
  std::smatch m;
  const std::string name = path.string();
  if (!std::regex_match(name, m, pattern) || std::stoll(m[3].str()) != count) {
    throw UserError(fmt::format("'{}' says it is part of a {}-part split model, but its name does "
                                "not end in -0000N-of-{:05d}.gguf",
                                name, count, count),
                    "the part names gguf-split writes",
                    "restore the original file names of the parts");
  }
  std::vector<std::filesystem::path> parts;
  for (int64_t i = 1; i <= count; ++i)
    parts.emplace_back(fmt::format("{}-{:05d}-of-{:05d}.gguf", m[1].str(), i, count));
  return parts;
}

// A header can be whole while the data after it is cut short; the tensor
// table says where the data must end, so compare that with the file size.
void check_not_truncated(const gguf_context* ctx, const std::filesystem::path& path) {
  uint64_t end = gguf_get_data_offset(ctx);
  for (int64_t i = 0; i < gguf_get_n_tensors(ctx); ++i)
    end = std::max<uint64_t>(end, gguf_get_data_offset(ctx) + gguf_get_tensor_offset(ctx, i) +
                                      gguf_get_tensor_size(ctx, i));
  const uint64_t size = std::filesystem::file_size(path);
  if (size < end) {
    throw UserError(fmt::format("'{}' is truncated: {} bytes on disk, its tensor table needs {}",
                                path.string(), size, end),
                    "a complete model file", kRedownload);
  }
}

uint64_t params_of(const TensorEntry& t) {
  return static_cast<uint64_t>(t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]);
}

}  // namespace

const char* group_name(TensorGroup g) {
  static const char* names[] = {"embeddings",     "output",      "attention",
                                "dense_ffn",      "router",      "routed_experts",
                                "shared_experts", "norms_other", "mtp"};
  return names[static_cast<int>(g)];
}

TensorGroup classify_tensor(const std::string& name, int mtp_first_block) {
  if (starts_with(name, "blk.") && mtp_first_block >= 0) {
    const int block = std::atoi(name.c_str() + 4);
    if (block >= mtp_first_block) return TensorGroup::kMtp;
  }
  if (contains(name, "nextn")) return TensorGroup::kMtp;
  if (contains(name, "norm")) return TensorGroup::kNormsOther;
  if (starts_with(name, "token_embd.")) return TensorGroup::kEmbedding;
  if (starts_with(name, "output.")) return TensorGroup::kOutput;
  if (contains(name, "_shexp")) return TensorGroup::kSharedExperts;
  if (contains(name, "_exps")) return TensorGroup::kRoutedExperts;
  if (contains(name, "ffn_gate_inp") || contains(name, "exp_probs")) return TensorGroup::kRouter;
  if (starts_with(name, "blk.") && contains(name, ".attn_")) return TensorGroup::kAttention;
  if (starts_with(name, "blk.") && contains(name, ".ffn_")) return TensorGroup::kDenseFfn;
  return TensorGroup::kNormsOther;
}

int64_t GgufInspection::moe_layers() const {
  return n_expert > 0 ? std::max<int64_t>(0, n_layer - n_layer_dense_lead) : 0;
}

uint64_t GgufInspection::bytes_per_routed_expert() const {
  const int64_t units = moe_layers() * n_expert;
  return units > 0 ? group(TensorGroup::kRoutedExperts).bytes / static_cast<uint64_t>(units) : 0;
}

namespace {

// The architecture's hyperparameters from part 1's metadata.
void read_hparams(const gguf_context* meta, GgufInspection& m) {
  m.arch = gguf_text_key(meta, "general.architecture");
  m.model_name = gguf_text_key(meta, "general.name");
  const std::string a = m.arch + ".";
  const int64_t block_count = int_key(meta, a + "block_count");
  m.n_nextn = int_key(meta, a + "nextn_predict_layers");
  m.n_layer = block_count - m.n_nextn;
  m.n_layer_dense_lead = int_key(meta, a + "leading_dense_block_count");
  m.n_embd = int_key(meta, a + "embedding_length");
  m.n_ctx_train = int_key(meta, a + "context_length");
  m.n_head = int_key(meta, a + "attention.head_count");
  m.n_head_kv = int_values(meta, a + "attention.head_count_kv");
  if (m.n_head_kv.empty()) m.n_head_kv = {m.n_head};
  m.key_length = int_key(meta, a + "attention.key_length", m.n_head ? m.n_embd / m.n_head : 0);
  m.value_length = int_key(meta, a + "attention.value_length", m.key_length);
  m.kv_lora_rank = int_key(meta, a + "attention.kv_lora_rank");
  m.q_lora_rank = int_key(meta, a + "attention.q_lora_rank");
  m.rope_dim = int_key(meta, a + "rope.dimension_count");
  // Same test as the engine's llama_hparams::is_mla(): both MLA head sizes set.
  m.mla = int_key(meta, a + "attention.key_length_mla") > 0 &&
          int_key(meta, a + "attention.value_length_mla") > 0 && m.kv_lora_rank > 0;
  m.n_expert = int_key(meta, a + "expert_count");
  m.n_expert_used = int_key(meta, a + "expert_used_count");
  m.n_expert_shared = int_key(meta, a + "expert_shared_count");
  m.expert_ff = int_key(meta, a + "expert_feed_forward_length");
  m.moe_every = int_key(meta, a + "interleave_moe_layer_step", 1);
  m.n_vocab = int_key(meta, a + "vocab_size");
  if (m.n_vocab == 0) {
    const int64_t id = gguf_find_key(meta, "tokenizer.ggml.tokens");
    if (id >= 0) m.n_vocab = static_cast<int64_t>(gguf_get_arr_n(meta, id));
  }
  const int64_t ftype = int_key(meta, "general.file_type", -1);
  m.file_type = ftype >= 0 ? quant_name_of(static_cast<int>(ftype)) : "";
}

// One part's tensors, classified and summed into their groups.
void read_tensors(const gguf_context* ctx, const std::filesystem::path& file, int part,
                  int mtp_first_block, GgufInspection& m) {
  check_not_truncated(ctx, file);
  m.file_bytes += std::filesystem::file_size(file);
  for (int64_t i = 0; i < gguf_get_n_tensors(ctx); ++i) {
    TensorEntry t;
    t.name = gguf_get_tensor_name(ctx, i);
    t.type = gguf_get_tensor_type(ctx, i);
    const int64_t* ne = gguf_get_tensor_ne(ctx, i);
    std::copy(ne, ne + 4, t.ne.begin());
    t.bytes = gguf_get_tensor_size(ctx, i);
    t.group = classify_tensor(t.name, mtp_first_block);
    t.file_index = part;
    auto& g = m.groups[static_cast<int>(t.group)];
    ++g.tensors;
    g.bytes += t.bytes;
    g.params += params_of(t);
    m.tensor_bytes += t.bytes;
    m.params += params_of(t);
    m.tensors.push_back(std::move(t));
  }
}

// The names against the arch's list, with the dims the metadata gives.
TensorListCheck check_against_arch(const GgufInspection& m) {
  ArchDims d;
  d.arch = m.arch;
  d.layers = m.n_layer;
  d.dense_lead = m.n_layer_dense_lead;
  d.moe_every = m.moe_every;
  d.q_lora = m.q_lora_rank;
  d.experts = m.n_expert;
  d.shared_experts = m.arch == "qwen3moe" ? 0 : m.n_expert_shared;
  d.mla_split = m.mla;  // without the MLA head sizes the engine expects the legacy attn_kv_b
  std::vector<std::string> names;
  names.reserve(m.tensors.size());
  for (const TensorEntry& t : m.tensors) names.push_back(t.name);
  return check_tensor_names(names, d, m.n_nextn > 0 ? m.n_layer : -1);
}

}  // namespace

GgufInspection inspect_gguf(const std::filesystem::path& path) {
  GgufInspection m;
  GgufHandle first = open_header(path);
  const int64_t split_count = int_key(first.get(), "split.count", 1);
  m.files = split_count > 1 ? split_parts(path, split_count) : std::vector{path};
  if (m.files.front() != path) first = open_header(m.files.front());  // metadata lives in part 1

  const gguf_context* meta = first.get();
  check_engine_hparams(meta, m.files.front().string());  // also bounds the per-layer loops
  read_hparams(meta, m);
  const int mtp_first_block = m.n_nextn > 0 ? static_cast<int>(m.n_layer) : -1;
  for (size_t part = 0; part < m.files.size(); ++part) {
    GgufHandle owned(nullptr, &gguf_free);
    const gguf_context* ctx = meta;
    if (part > 0) {
      owned = open_header(m.files[part]);
      ctx = owned.get();
      const int64_t no = int_key(ctx, "split.no", -1);
      if (no != static_cast<int64_t>(part)) {
        throw UserError(fmt::format("'{}' says it is split part {} (counting from 0), expected {}",
                                    m.files[part].string(), no, part),
                        "the parts of one model, as gguf-split wrote them",
                        "do not mix parts of different downloads; fetch the set again");
      }
    }
    read_tensors(ctx, m.files[part], static_cast<int>(part), mtp_first_block, m);
  }
  const int64_t expected = int_key(meta, "split.tensors.count", -1);
  if (expected >= 0 && expected != static_cast<int64_t>(m.tensors.size())) {
    throw UserError(fmt::format("'{}': the parts hold {} tensors, part 1 announces {}",
                                path.string(), m.tensors.size(), expected),
                    "every part of the split model", "fetch the missing or damaged parts again");
  }
  m.tensor_check = check_against_arch(m);
  return m;
}

ActiveBytes active_bytes_per_token(const GgufInspection& m, int64_t depth, ggml_type type_k,
                                   ggml_type type_v) {
  ActiveBytes a;
  const bool tied_output = m.group(TensorGroup::kOutput).tensors == 0;
  double active_params = 0;
  for (const auto& t : m.tensors) {
    double share = 1.0;
    switch (t.group) {
      case TensorGroup::kMtp:
        share = 0;
        break;
      case TensorGroup::kEmbedding:
        // A lookup reads one row, unless the table doubles as the output head.
        share = tied_output || t.ne[1] == 0 ? 1.0 : 1.0 / static_cast<double>(t.ne[1]);
        break;
      case TensorGroup::kRoutedExperts:
        share = m.n_expert > 0
                    ? static_cast<double>(m.n_expert_used) / static_cast<double>(m.n_expert)
                    : 1.0;
        break;
      default:
        break;
    }
    const uint64_t bytes = static_cast<uint64_t>(static_cast<double>(t.bytes) * share + 0.5);
    if (t.group == TensorGroup::kRoutedExperts)
      a.routed_active += bytes;
    else if (t.group == TensorGroup::kSharedExperts)
      a.shared += bytes;
    else
      a.non_expert += bytes;
    if (t.group != TensorGroup::kEmbedding || tied_output)
      active_params += static_cast<double>(params_of(t)) * share;
  }
  a.kv = static_cast<uint64_t>(depth) * kv_bytes_per_token(kv_shape_of(m), type_k, type_v);
  // Attention over `depth` cached tokens: scores and weighted sum per head.
  const double attn_width = m.mla ? static_cast<double>(2 * m.kv_lora_rank + m.rope_dim)
                                  : static_cast<double>(m.key_length + m.value_length);
  a.flops =
      2.0 * active_params + 2.0 * static_cast<double>(m.n_layer * m.n_head * depth) * attn_width;
  return a;
}

ggml_type parse_cache_type(const std::string& name) {
  if (!is_kv_cache_type(name)) {
    throw UserError(fmt::format("unknown KV cache type '{}'", name),
                    fmt::format("one of {}", fmt::join(kv_cache_type_names(), ", ")),
                    "use the name llama.cpp's -ctk/-ctv take, e.g. q8_0");
  }
  for (int t = 0; t < GGML_TYPE_COUNT; ++t)  // the engine's own names for its types
    if (const char* n = ggml_type_name(static_cast<ggml_type>(t)); n && name == n)
      return static_cast<ggml_type>(t);
  throw UserError(fmt::format("KV cache type '{}' is not a type of this ggml", name),
                  "a type name of the engine's ggml", "use the name llama.cpp's -ctk/-ctv take");
}

nlohmann::json to_json(const GgufInspection& m, const ActiveBytes& active, int64_t depth) {
  nlohmann::json groups = nlohmann::json::object();
  for (int g = 0; g < kTensorGroupCount; ++g) {
    const auto& t = m.groups[g];
    if (t.tensors == 0) continue;
    groups[group_name(static_cast<TensorGroup>(g))] = {
        {"tensors", t.tensors}, {"bytes", t.bytes}, {"params", t.params}};
  }
  std::vector<std::string> files;
  for (const auto& f : m.files) files.push_back(f.string());
  return {{"files", files},
          {"file_bytes", m.file_bytes},
          {"arch", m.arch},
          {"name", m.model_name},
          {"layers", m.n_layer},
          {"dense_lead_layers", m.n_layer_dense_lead},
          {"mtp_layers", m.n_nextn},
          {"hidden", m.n_embd},
          {"vocab", m.n_vocab},
          {"heads", m.n_head},
          {"kv_heads", m.n_head_kv.front()},
          {"mla", m.mla},
          {"kv_lora_rank", m.kv_lora_rank},
          {"rope_dim", m.rope_dim},
          {"experts", m.n_expert},
          {"experts_used", m.n_expert_used},
          {"shared_experts", m.n_expert_shared},
          {"expert_ff", m.expert_ff},
          {"tensors", m.tensors.size()},
          {"tensor_bytes", m.tensor_bytes},
          {"params", m.params},
          {"groups", groups},
          {"bytes_per_routed_expert", m.bytes_per_routed_expert()},
          {"tensor_check",
           {{"arch_known", m.tensor_check.known},
            {"unexpected", m.tensor_check.unexpected},
            {"missing", m.tensor_check.missing},
            {"unchecked_mtp", m.tensor_check.unchecked}}},
          {"active_per_token",
           {{"depth", depth},
            {"non_expert_bytes", active.non_expert},
            {"routed_active_bytes", active.routed_active},
            {"shared_expert_bytes", active.shared},
            {"kv_bytes", active.kv},
            {"total_bytes", active.total()},
            {"flops", active.flops}}}};
}

}  // namespace moesweep
