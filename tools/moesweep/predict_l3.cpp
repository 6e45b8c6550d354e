#include "predict_l3.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "analysis/cache_sim.hpp"
#include "analysis/l3_term.hpp"
#include "hw/topology.hpp"
#include "model/model_profile.hpp"
#include "util/error.hpp"

namespace moesweep::cli {

void print_l3_term(const PredictL3Input& in) {
  if (in.model_profile.empty())
    throw UserError("predict --trace needs --model",
                    "a model profile: its routed and non-routed bytes split the bytes per token",
                    "add --model PROFILE (e.g. kimi-k2.5)");
  std::filesystem::path file = in.trace;
  if (std::filesystem::is_directory(file)) file /= "routing.trace.zst";
  const RoutingTrace trace = read_routing_trace(file);
  const std::vector<BlockAccess> reads = expert_block_accesses(trace);
  const LruCurve lru(reads, stack_distances(reads));
  const HitRateCurve curve =
      hit_rate_curve(lru, static_cast<double>(trace.model.routed_bytes_total));

  const ModelProfile p = load_model_profile(in.model_profile);
  const ParamCount c = count_params(p);
  L3Inputs l3;
  l3.routed_bytes_total = static_cast<double>(c.routed_experts) * in.bytes_per_weight;
  l3.routed_bytes_per_token = p.shape.experts > 0 ? l3.routed_bytes_total *
                                                        static_cast<double>(p.shape.experts_used) /
                                                        static_cast<double>(p.shape.experts)
                                                  : 0;
  // as predict counts a token's weights: the active parameters plus one embedding row
  const double weights = static_cast<double>(c.active + p.shape.hidden) * in.bytes_per_weight;
  l3.hot_bytes = weights - l3.routed_bytes_per_token;
  l3.streamed_bytes = in.kv_bytes;
  l3.l3_bytes =
      in.l3_bytes > 0 ? in.l3_bytes : static_cast<double>(probe_topology().l3_total_bytes());
  l3.bandwidth_gbps = in.bandwidth_gbps;
  const L3Estimate e = l3_decode_estimate(l3, curve);

  fmt::print(
      "L3 term (LRU curve of {} with {} experts, {} used; as a share of the routed pool{}):\n",
      file.filename().string(), trace.model.n_expert, trace.model.n_expert_used,
      trace.model.n_expert == p.shape.experts
          ? ""
          : fmt::format("; NOTE {} has {} experts, the trace's model {}", p.name, p.shape.experts,
                        trace.model.n_expert));
  fmt::print(
      "  L3 {:.0f} MiB, hot set {:.2f} GB per token {}, experts get {:.0f} MiB of {:.1f} GB "
      "-> hit rate {:.1f}% of routed bytes\n",
      l3.l3_bytes / (1 << 20), l3.hot_bytes / 1e9, e.hot_fits ? "(fits)" : "(does NOT fit)",
      e.expert_cache_bytes / (1 << 20), l3.routed_bytes_total / 1e9, 100 * e.hit_rate);
  fmt::print("  decode roofline without L3: {:.2f} tok/s ({:.2f} GB/token from DRAM)\n",
             e.tps_no_l3, e.dram_bytes_no_l3 / 1e9);
  fmt::print("  decode roofline with L3:    {:.2f} tok/s ({:.2f} GB/token from DRAM)\n",
             e.tps_with_l3, e.dram_bytes_with_l3 / 1e9);
}

}  // namespace moesweep::cli
