#include "model/twin_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/model_profile.hpp"

namespace moesweep {
namespace {

bool reads(const EngineReads& e, const std::string& feature) {
  return !e.known || std::find(e.reads.begin(), e.reads.end(), feature) != e.reads.end();
}

// A requirement an engine states; one that cannot say states none.
bool requires_feature(const EngineReads& e, const std::string& feature) {
  return e.known && std::find(e.reads.begin(), e.reads.end(), feature) != e.reads.end();
}

bool all_read(const std::vector<EngineReads>& engines, const std::string& feature) {
  return std::all_of(engines.begin(), engines.end(),
                     [&](const EngineReads& e) { return reads(e, feature); });
}

// An architecture a twin can have, and the first npm release whose loader knows it.
struct ArchSupport {
  const char* arch;
  const char* first_release;
};
constexpr ArchSupport kArchSupport[] = {
    {"deepseek2", "3.1.1 (b3889)"},
    {"qwen3moe", "3.9.0 (b5590; upstream support landed in April 2025)"},
    {"llama4", "3.9.0 (b5590; upstream support landed in April 2025)"},
};

}  // namespace

std::string TwinLayout::describe() const {
  std::string out;
  if (!mla_split) out = "legacy attn_kv_b MLA";
  if (!v3_router) out += fmt::format("{}V2 softmax router", out.empty() ? "" : ", ");
  if (yarn_log_key)
    out += fmt::format("{}rope.scaling.yarn_log_multiplier", out.empty() ? "" : ", ");
  return out;
}

std::string cannot_load_reason(const ModelProfile& profile, const EngineReads& engine) {
  const std::string who =
      engine.engine +
      (engine.release.empty() ? "" : fmt::format(" (llama.cpp {})", engine.release));
  if (engine.max_experts > 0 && profile.shape.experts > engine.max_experts)
    return fmt::format(
        "engine {} loads at most {} routed experts per layer (its LLAMA_MAX_EXPERTS) and twin {} "
        "has {}: --experts {} makes a twin it loads",
        who, engine.max_experts, profile.name, profile.shape.experts, engine.max_experts);
  for (const ArchSupport& a : kArchSupport) {
    if (profile.arch != a.arch || reads(engine, a.arch)) continue;
    return fmt::format(
        "engine {} does not load architecture {} ({}): the first release on npm that does is {}",
        who, profile.arch, profile.name, a.first_release);
  }
  return "";
}

TwinLayout layout_for(const ModelProfile& profile, const std::vector<EngineReads>& engines) {
  TwinLayout layout;
  if (profile.arch != "deepseek2") return layout;
  layout.mla_split = all_read(engines, "deepseek2.split_mla");
  layout.v3_router = profile.gating != "sigmoid" || all_read(engines, "deepseek2.v3_router");
  layout.yarn_log_key =
      layout.mla_split && std::any_of(engines.begin(), engines.end(), [](const EngineReads& e) {
        return requires_feature(e, "deepseek2.requires_yarn_log_mul");
      });
  return layout;
}

void apply_router_layout(ModelProfile& profile, const TwinLayout& layout) {
  if (!layout.v3_router) profile.gating = "softmax";
}

}  // namespace moesweep
