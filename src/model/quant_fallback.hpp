#pragma once
// Tensors the engine could not quantize to the asked type: a row length that
// is not a multiple of the type's block (256 for the K-quants) falls back to
// a 32-block type (Q4_K -> Q5_0, Q6_K -> Q8_0, ...). Twins scale shapes down,
// so some of their small tensors always do. Parsed from the engine's own
// warnings, so the summary names exactly what the engine did.
#include <string>
#include <vector>

namespace moesweep {

struct QuantFallback {
  std::string tensor;  // blk.0.attn_kv_a_mqa.weight
  std::string wanted;  // q4_K
  std::string used;    // q5_0
};

// Every "warning: NAME - ncols N not divisible by B (required for type T)
// ... -> falling back to U" in the engine's log text.
std::vector<QuantFallback> parse_quant_fallbacks(const std::string& engine_log);

// One line: "3 tensors: blk.*.ffn_down_exps.weight (q4_K -> q5_0, x2), ..."
// with layer numbers folded into '*'; "" when there are none.
std::string quant_fallback_summary(const std::vector<QuantFallback>& fallbacks);

}  // namespace moesweep
