#include "engine/context_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace moesweep {

const std::vector<std::string>& kv_cache_type_names() {
  static const std::vector<std::string> names = {"f32",  "f16",    "bf16", "q8_0", "q4_0",
                                                 "q4_1", "iq4_nl", "q5_0", "q5_1"};
  return names;
}

bool is_kv_cache_type(const std::string& name) {
  const auto& names = kv_cache_type_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_quantized_cache(const std::string& name) {
  return name != "f32" && name != "f16" && name != "bf16";
}

// The engine's own rule (llama_init_from_model): a quantized V cache needs
// flash attention; with -fa auto (-1) the engine turns it on, only off (0) fails.
std::string context_rule_violation(const ContextParams& c) {
  if (is_quantized_cache(c.type_v) && c.flash_attn == 0)
    return fmt::format(
        "-ctv {} needs flash attention (-fa on or auto): the engine cannot create a quantized V "
        "cache without it",
        c.type_v);
  if (c.n_ubatch > c.n_batch)
    return fmt::format("-ub {} > -b {}: ubatch must not exceed batch", c.n_ubatch, c.n_batch);
  return "";
}

}  // namespace moesweep
