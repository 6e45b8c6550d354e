#include "results/memory_fields.hpp"

#include <fmt/format.h>

namespace moesweep {

const Rows<MemoryField>& memory_fields() {
  using M = MemoryFacts;
  // clang-format off
  static const Rows<MemoryField> table = {
      {&M::model_mapped, "model_mapped_bytes", "mem_model_mapped", "model mapped MiB",
       "bytes of the model file mapped into the engine's process (/proc/PID/smaps Size)", false},
      {&M::model_resident, "model_resident_bytes", "mem_model_resident", "model resident MiB",
       "of those, resident in RAM after the point (smaps Rss of the file's mappings)", true},
      {&M::model_mapped_engine, "model_mapped_engine_bytes", "mem_model_mapped_engine",
       "engine mapped MiB",
       "the model buffer the engine mapped from the file, as it logs it (the check of the first)", false},
      {&M::model_buffers, "model_buffer_bytes", "mem_model_buffers", "model buffers MiB",
       "model weights the engine copied out of the mapping (repacked or not mapped), as it logs them", false},
      {&M::kv, "kv_bytes", "mem_kv", "KV MiB", "the KV cache buffer, as the engine logs it", true},
      {&M::kv_expected, "kv_expected_bytes", "mem_kv_expected", "KV expected MiB",
       "kv_bytes_per_token x n_ctx from the model's attention shape (the check of the figure above)", false},
      {&M::compute, "compute_bytes", "mem_compute", "compute MiB",
       "the compute (graph scratch) buffer, as the engine logs it", false},
      {&M::peak_rss, "peak_rss_bytes", "mem_peak_rss", "peak RSS MiB",
       "VmHWM of the engine's process since its context was created", true},
      {&M::rss_rollup, "rss_rollup_bytes", "mem_rss_rollup", "RSS MiB",
       "smaps_rollup Rss of the engine's process after the point (an independent reading)", false},
      {&M::available_before_load, "available_before_load_bytes", "mem_available_before_load",
       "MemAvailable before load MiB", "/proc/meminfo MemAvailable before the model was loaded", false},
      {&M::available_after_load, "available_after_load_bytes", "mem_available_after_load",
       "MemAvailable after load MiB", "/proc/meminfo MemAvailable after the model was loaded", false},
  };
  // clang-format on
  return table;
}

nlohmann::json memory_to_json(const MemoryFacts& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const MemoryField& f : memory_fields())
    if (const auto& v = m.*f.member) j[f.json] = *v;
  if (!m.unavailable.empty()) j["unavailable"] = m.unavailable;
  return j;
}

MemoryFacts memory_from_json(const nlohmann::json& j) {
  MemoryFacts m;
  if (!j.is_object()) return m;
  for (const MemoryField& f : memory_fields()) {
    const auto it = j.find(f.json);
    if (it != j.end() && it->is_number_unsigned()) m.*f.member = it->get<uint64_t>();
  }
  const auto why = j.find("unavailable");
  if (why != j.end() && why->is_object())
    for (const auto& [field, text] : why->items())
      if (text.is_string()) m.unavailable[field] = text;
  return m;
}

std::string memory_mib_cell(const std::optional<uint64_t>& bytes) {
  if (!bytes) return "n/a";
  const double mib = static_cast<double>(*bytes) / (1 << 20);
  return fmt::format("{:.{}f}", mib, mib < 10 ? 2 : 1);
}

}  // namespace moesweep
