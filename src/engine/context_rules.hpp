#pragma once
// The engine's rules for a context's settings, in one place: which KV cache
// types it takes, that a quantized V cache needs flash attention, and that
// ubatch may not exceed batch. The sweep spec checks the cache types as it is
// built, the plan marks a combination that breaks a rule invalid before
// anything loads, and LiveContext re-checks as a guard.
#include <string>
#include <vector>

#include "engine/engine_types.hpp"

namespace moesweep {

// llama.cpp's -ctk/-ctv names: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1.
const std::vector<std::string>& kv_cache_type_names();
bool is_kv_cache_type(const std::string& name);
// Every cache type but f32, f16 and bf16.
bool is_quantized_cache(const std::string& name);

// Why the engine would refuse this context, or "" when it would not.
std::string context_rule_violation(const ContextParams& c);

}  // namespace moesweep
