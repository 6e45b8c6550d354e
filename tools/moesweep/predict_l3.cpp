#include "predict_l3.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "analysis/l3_model.hpp"
#include "analysis/l3_term.hpp"
#include "hw/topology.hpp"
#include "model/model_profile.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

struct ProfileBytes {
  L3Inputs in;
  double routed_total = 0;
};

// Routed and hot bytes as predict counts a token: active parameters + one embedding row.
ProfileBytes profile_bytes(const ModelProfile& p, const PredictL3Input& o) {
  const ParamCount c = count_params(p);
  ProfileBytes b;
  b.routed_total = static_cast<double>(c.routed_experts) * o.bytes_per_weight;
  b.in.routed_bytes_per_token = p.shape.experts > 0
                                    ? b.routed_total * static_cast<double>(p.shape.experts_used) /
                                          static_cast<double>(p.shape.experts)
                                    : 0;
  const double weights = static_cast<double>(c.active + p.shape.hidden) * o.bytes_per_weight;
  b.in.hot_bytes = weights - b.in.routed_bytes_per_token;
  b.in.streamed_bytes = o.kv_bytes;
  b.in.bandwidth_gbps = o.bandwidth_gbps;
  return b;
}

CacheMachine machine_for(const PredictL3Input& o, const ModelProfile& p, double l3) {
  CacheMachine m;
  const std::string type = expert_type_of_quant(o.quant);
  const bool fused = p.arch == "deepseek2";  // this engine's deepseek2 experts: ffn_gate_up_exps
  m.matrices = expert_matrices(p.shape.hidden, p.shape.expert_ff, fused, RowSchedule::kChunked);
  for (ExpertMatrix& x : m.matrices) x.schedule = row_schedule_for(type, x.rows, true, false);
  if (o.cores > 0) {
    const int domains = std::max(1, o.l3_domains);
    const Topology t = evenly_split_topology(
        o.cores, domains, static_cast<uint64_t>(l3 / static_cast<double>(domains)));
    m.layout = domain_layout(t, o.cores);
  } else {
    m.layout = shared_layout(1, static_cast<uint64_t>(l3));
  }
  return m;
}

}  // namespace

std::string expert_type_of_quant(const std::string& quant) {
  std::string q = quant;
  std::transform(q.begin(), q.end(), q.begin(), [](unsigned char c) { return std::tolower(c); });
  const size_t k = q.find("_k");
  if (k != std::string::npos) return q.substr(0, k) + "_K";  // q4_k_s -> q4_K
  return q;
}

void print_l3_term(const PredictL3Input& o) {
  if (o.model_profile.empty())
    throw UserError("predict --trace needs --model",
                    "a model profile: its routed and non-routed bytes split the bytes per token",
                    "add --model PROFILE (e.g. kimi-k2.5)");
  std::filesystem::path file = o.trace;
  if (std::filesystem::is_directory(file)) file /= "routing.trace.zst";
  const RoutingTrace trace = read_routing_trace(file);
  const ModelProfile p = load_model_profile(o.model_profile);
  const ProfileBytes b = profile_bytes(p, o);
  const double l3 =
      o.l3_bytes > 0 ? o.l3_bytes : static_cast<double>(probe_topology().l3_total_bytes());
  const std::vector<BlockAccess> stream =
      model_block_accesses(trace, scaled_sizes(trace.model, b.routed_total, b.in.hot_bytes));
  const L3Estimate shared =
      l3_decode_estimate(b.in, lru_hit_bytes(stream, static_cast<uint64_t>(l3)).rates());
  const CacheMachine machine = machine_for(o, p, l3);
  const HitBand band = hit_band(stream, machine);
  HitRates lo = band.of(CacheModel::kByteLru), hi = lo;
  lo.generation = band.pessimistic, hi.generation = band.optimistic;

  fmt::print("L3 term (the read stream of {} with {} experts, {} used, at {}'s sizes{}):\n",
             file.filename().string(), trace.model.n_expert, trace.model.n_expert_used, p.name,
             trace.model.n_expert == p.shape.experts
                 ? ""
                 : fmt::format("; NOTE {} has {} experts, the trace's model {}", p.name,
                               p.shape.experts, trace.model.n_expert));
  fmt::print(
      "  L3 {:.0f} MiB; one shared LRU: experts hit {:.1f}%, hot set ({:.2f} GB/token) hit "
      "{:.1f}%\n",
      l3 / (1 << 20), 100 * shared.hits.generation, b.in.hot_bytes / 1e9,
      100 * shared.hits.hot_generation);
  fmt::print(
      "  over {} L3 domain(s) at {} threads ({:.0f}% of expert bytes on a random domain "
      "each step): experts hit {:.1f}% to {:.1f}% (byte-LRU, 16-way LRU, BIP, random)\n",
      machine.layout.domain_bytes.size(), machine.layout.threads(),
      100 * dynamic_share(machine.matrices, machine.layout.threads()), 100 * band.pessimistic,
      100 * band.optimistic);
  fmt::print("  decode roofline without L3: {:.2f} tok/s ({:.2f} GB/token from DRAM)\n",
             shared.tps_no_l3, shared.dram_bytes_no_l3 / 1e9);
  fmt::print(
      "  decode roofline with L3:    {:.2f} tok/s shared LRU; {:.2f} to {:.2f} tok/s over "
      "the domains\n",
      shared.tps_with_l3, l3_decode_estimate(b.in, lo).tps_with_l3,
      l3_decode_estimate(b.in, hi).tps_with_l3);
}

}  // namespace moesweep::cli
