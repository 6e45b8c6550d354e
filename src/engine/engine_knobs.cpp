#include "engine/engine_knobs.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace moesweep {
namespace {

// One row per switch: its ik_llama.cpp name and the member.
std::array<std::pair<const char*, int>, 4> knob_rows(const EngineKnobs& k) {
  return {{{"fmoe", k.fused_moe}, {"rtr", k.repack}, {"mla", k.mla}, {"amb", k.attn_max_batch}}};
}

}  // namespace

std::string knobs_text(const EngineKnobs& k) {
  std::string out;
  for (const auto& [name, value] : knob_rows(k))
    if (value >= 0) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

std::string first_knob_flag(const EngineKnobs& k) {
  for (const auto& [name, value] : knob_rows(k))
    if (value >= 0) return fmt::format("-{}", name);
  return "";
}

}  // namespace moesweep
