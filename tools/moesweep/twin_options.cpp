#include "twin_options.hpp"

#include <fmt/format.h>

namespace moesweep::cli {

void TwinOptions::add_to(CLI::App& cmd, bool model_flag_is_profile) {
  if (model_flag_is_profile)
    cmd.add_option("--model", model, "model profile name (profiles/models) or profile JSON path")
        ->capture_default_str();
  cmd.add_option("--scale", scale, "twin size preset: tiny (tests), small (~1-2 GB), full")
      ->capture_default_str();
  cmd.add_option("--layers", overrides.layers, "override: number of layers");
  cmd.add_option("--hidden", overrides.hidden, "override: hidden size (multiple of 256)");
  cmd.add_option("--heads", overrides.heads, "override: attention heads");
  cmd.add_option("--expert-ff", overrides.expert_ff, "override: routed expert FFN size");
  cmd.add_option("--dense-ff", overrides.dense_ff, "override: dense FFN size");
  cmd.add_option("--vocab", overrides.vocab, "override: vocabulary size");
  cmd.add_option("--experts", overrides.experts, "override: routed experts");
  cmd.add_option("--experts-used", overrides.experts_used, "override: experts used per token");
  cmd.add_option("--seed", seed, "random seed of the weights")->capture_default_str();
}

TwinSpec TwinOptions::spec_for(const std::string& quant) const {
  TwinSpec spec;
  const ModelProfile real = load_model_profile(model);
  spec.profile = scale_profile(real, scale, overrides);
  const bool overridden = overrides.layers || overrides.hidden || overrides.heads ||
                          overrides.expert_ff || overrides.dense_ff || overrides.vocab ||
                          overrides.experts || overrides.experts_used || overrides.q_lora_rank ||
                          overrides.kv_lora_rank;
  spec.scale = overridden ? scale + "+custom" : scale;
  spec.quant = quant;
  spec.seed = seed;
  return spec;
}

std::string human_count(int64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1e12) return fmt::format("{:.2f}T", v / 1e12);
  if (v >= 1e9) return fmt::format("{:.2f}B", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f}K", v / 1e3);
  return std::to_string(n);
}

std::string human_bytes(uint64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", v / (1024.0 * 1024 * 1024));
  if (v >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", v / (1024.0 * 1024));
  return fmt::format("{:.1f} KiB", v / 1024.0);
}

}  // namespace moesweep::cli
