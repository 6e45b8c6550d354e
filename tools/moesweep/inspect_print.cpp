#include "inspect_print.hpp"

#include <fmt/format.h>

#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/roofline.hpp"
#include "model/kv_cache.hpp"

namespace moesweep::cli {
namespace {

std::string gb(double bytes) {
  return fmt::format("{:.2f} GB", bytes / 1e9);
}
std::string human(uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.2f} GiB", bytes / double(1ull << 30));
  if (bytes >= (1ull << 20)) return fmt::format("{:.2f} MiB", bytes / double(1ull << 20));
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

void print_shape(const GgufInspection& m) {
  fmt::print("model:   {} ({}{}), {} file(s), {} on disk\n",
             m.model_name.empty() ? "?" : m.model_name, m.arch,
             m.file_type.empty() ? "" : ", " + m.file_type, m.files.size(), human(m.file_bytes));
  fmt::print("shape:   {} layers ({} dense lead, {} MTP), hidden {}, {} heads, ", m.n_layer,
             m.n_layer_dense_lead, m.n_nextn, m.n_embd, m.n_head);
  if (m.mla)
    fmt::print("MLA (kv_lora_rank {}, rope {}), ", m.kv_lora_rank, m.rope_dim);
  else
    fmt::print("{} KV heads x {}/{}, ", m.n_head_kv.front(), m.key_length, m.value_length);
  fmt::print("vocab {}\n", m.n_vocab);
  if (m.n_expert > 0)
    fmt::print("experts: {} routed ({} used per token), {} shared, expert FFN {}\n", m.n_expert,
               m.n_expert_used, m.n_expert_shared, m.expert_ff);
  fmt::print("tensors: {}, {:.3f} B parameters, {}\n", m.tensors.size(), m.params / 1e9,
             human(m.tensor_bytes));
}

// The names against what the real architecture ships (a twin must match it exactly).
void print_tensor_check(const GgufInspection& m) {
  const TensorListCheck& c = m.tensor_check;
  if (!c.known)
    fmt::print("vs arch: no tensor list known for '{}': not compared\n", m.arch);
  else if (c.unexpected.empty() && c.missing.empty())
    fmt::print("vs arch: the tensors {} ships, none missing, none extra\n", m.arch);
  if (!c.unexpected.empty())
    fmt::print("vs arch: {} unexpected (not shipped by {}): {}\n", c.unexpected.size(), m.arch,
               fold_layer_names(c.unexpected));
  if (!c.missing.empty())
    fmt::print("vs arch: {} missing (expected by {}): {}\n", c.missing.size(), m.arch,
               fold_layer_names(c.missing));
  fmt::print("\n");
}

// Bytes and parameters per tensor group, then per expert and per KV token.
void print_groups(const GgufInspection& m, ggml_type tk, ggml_type tv) {
  fmt::print("{:<16} {:>8} {:>14} {:>12} {:>7}\n", "group", "tensors", "bytes", "params (B)",
             "share");
  for (int g = 0; g < kTensorGroupCount; ++g) {
    const GroupTotals& t = m.groups[g];
    if (t.tensors == 0) continue;
    fmt::print("{:<16} {:>8} {:>14} {:>12.3f} {:>6.1f}%\n", group_name(static_cast<TensorGroup>(g)),
               t.tensors, human(t.bytes), t.params / 1e9,
               100.0 * t.bytes / std::max<uint64_t>(1, m.tensor_bytes));
  }
  if (m.n_expert > 0)
    fmt::print("\nbytes per routed expert (one layer, all its matrices): {}\n",
               human(m.bytes_per_routed_expert()));
  fmt::print("KV cache per token (K {}, V {}): {}\n", ggml_type_name(tk),
             m.mla ? "none (MLA)" : ggml_type_name(tv),
             human(kv_bytes_per_token(kv_shape_of(m), tk, tv)));
}

// What one decoded token reads, and the decode ceilings it implies.
void print_active_bytes(const GgufInspection& m, const ActiveBytes& a, int64_t depth) {
  fmt::print("\nactive bytes per decoded token at depth {}:\n", depth);
  auto line = [](const std::string& label, double bytes, const char* note) {
    fmt::print("  {:<26}{:>10}{}\n", label, gb(bytes), note);
  };
  line("non-expert weights", a.non_expert,
       "  (attention, dense FFN, router, norms, output, 1 embedding row)");
  if (m.n_expert > 0)
    line(fmt::format("routed experts ({}/{})", m.n_expert_used, m.n_expert), a.routed_active, "");
  if (a.shared > 0) line("shared experts", a.shared, "");
  line("KV cache read", a.kv, "");
  line("total", a.total(), "");

  const HardwareProfile profile = match_hardware_profile(cpu_info().model_name);
  if (auto bw = load_cached_bandwidth())
    fmt::print("decode ceiling here: {:.2f} tok/s (measured {:.1f} GB/s / {})\n",
               *decode_roofline_tps(bw->gbps, a.total()), bw->gbps, gb(a.total()));
  else
    fmt::print("decode ceiling here: unknown until `moesweep hw --bandwidth` has run\n");
  if (profile.theoretical_bandwidth_gbps() > 0)
    fmt::print("decode ceiling at {}'s theoretical {:.0f} GB/s: {:.2f} tok/s\n", profile.name,
               profile.theoretical_bandwidth_gbps(),
               *decode_roofline_tps(profile.theoretical_bandwidth_gbps(), a.total()));
}

}  // namespace

void print_inspection(const GgufInspection& m, const ActiveBytes& a, int64_t depth, ggml_type tk,
                      ggml_type tv, bool tensors) {
  print_shape(m);
  print_tensor_check(m);
  print_groups(m, tk, tv);
  print_active_bytes(m, a, depth);
  if (tensors) {
    fmt::print("\n{:<44} {:<8} {:<28} {:>12} {:<15} {}\n", "tensor", "type", "shape", "bytes",
               "group", "file");
    for (const auto& t : m.tensors)
      fmt::print("{:<44} {:<8} {:<28} {:>12} {:<15} {}\n", t.name, ggml_type_name(t.type),
                 fmt::format("{}x{}x{}x{}", t.ne[0], t.ne[1], t.ne[2], t.ne[3]), t.bytes,
                 group_name(t.group), t.file_index + 1);
  }
}

void print_inspection_json(const GgufInspection& m, const ActiveBytes& a, int64_t depth,
                           ggml_type tk, ggml_type tv, bool tensors) {
  nlohmann::json j = to_json(m, a, depth);
  j["cache_type_k"] = ggml_type_name(tk);
  j["cache_type_v"] = ggml_type_name(tv);
  if (tensors) {
    j["tensor_list"] = nlohmann::json::array();
    for (const auto& t : m.tensors)
      j["tensor_list"].push_back({{"name", t.name},
                                  {"type", ggml_type_name(t.type)},
                                  {"ne", t.ne},
                                  {"bytes", t.bytes},
                                  {"group", group_name(t.group)},
                                  {"file", t.file_index}});
  }
  fmt::print("{}\n", j.dump(2));
}

}  // namespace moesweep::cli
