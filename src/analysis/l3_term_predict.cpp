#include "analysis/l3_term_predict.hpp"

#include <algorithm>
#include <cctype>

#include "analysis/cache_sim.hpp"
#include "hw/topology.hpp"
#include "model/arch_tensors.hpp"

namespace moesweep {

TokenBytes token_bytes(const ModelProfile& p, double bytes_per_weight, double kv_bytes,
                       double bandwidth_gbps) {
  const ParamCount c = count_params(p);
  TokenBytes b;
  b.routed_total = static_cast<double>(c.routed_experts) * bytes_per_weight;
  b.in.routed_bytes_per_token = p.shape.experts > 0
                                    ? b.routed_total * static_cast<double>(p.shape.experts_used) /
                                          static_cast<double>(p.shape.experts)
                                    : 0;
  const double weights = static_cast<double>(c.active + p.shape.hidden) * bytes_per_weight;
  b.in.hot_bytes = weights - b.in.routed_bytes_per_token;
  b.in.streamed_bytes = kv_bytes;
  b.in.bandwidth_gbps = bandwidth_gbps;
  return b;
}

CacheMachine predicted_cache_machine(const ModelProfile& p, const std::string& quant,
                                     double l3_bytes, int cores, int l3_domains) {
  CacheMachine m;
  const std::string type = expert_type_of_quant(quant);
  m.matrices = expert_matrices(p.shape.hidden, p.shape.expert_ff, ships_fused_gate_up_experts(p),
                               RowSchedule::kChunked);
  for (ExpertMatrix& x : m.matrices) x.schedule = row_schedule_for(type, x.rows, true, false);
  if (cores > 0) {
    const int domains = std::max(1, l3_domains);
    const Topology t = evenly_split_topology(
        cores, domains, static_cast<uint64_t>(l3_bytes / static_cast<double>(domains)));
    m.layout = domain_layout(t, cores);
  } else {
    m.layout = shared_layout(1, static_cast<uint64_t>(l3_bytes));
  }
  return m;
}

L3TermPrediction predict_l3_term(const PredictL3Input& in) {
  L3TermPrediction r;
  r.trace_file = in.trace;
  if (std::filesystem::is_directory(r.trace_file)) r.trace_file /= "routing.trace.zst";
  const RoutingTrace trace = read_routing_trace(r.trace_file);
  r.trace_model = trace.model;
  r.model = load_model_profile(in.model_profile);
  r.bytes = token_bytes(r.model, in.bytes_per_weight, in.kv_bytes, in.bandwidth_gbps);
  r.l3_bytes =
      in.l3_bytes > 0 ? in.l3_bytes : static_cast<double>(probe_topology().l3_total_bytes());
  const std::vector<BlockAccess> stream = model_block_accesses(
      trace, scaled_sizes(trace.model, r.bytes.routed_total, r.bytes.in.hot_bytes));
  r.shared = l3_decode_estimate(r.bytes.in,
                                lru_hit_bytes(stream, static_cast<uint64_t>(r.l3_bytes)).rates());
  r.machine = predicted_cache_machine(r.model, in.quant, r.l3_bytes, in.cores, in.l3_domains);
  r.dynamic_share = dynamic_share(r.machine.matrices, r.machine.layout.threads());
  r.band = hit_band(stream, r.machine);
  HitRates lo = r.band.of(CacheModel::kByteLru), hi = lo;
  lo.generation = r.band.pessimistic, hi.generation = r.band.optimistic;
  r.tps_pessimistic = l3_decode_estimate(r.bytes.in, lo).tps_with_l3;
  r.tps_optimistic = l3_decode_estimate(r.bytes.in, hi).tps_with_l3;
  return r;
}

std::string expert_type_of_quant(const std::string& quant) {
  std::string q = quant;
  std::transform(q.begin(), q.end(), q.begin(), [](unsigned char c) { return std::tolower(c); });
  const size_t k = q.find("_k");
  if (k != std::string::npos) return q.substr(0, k) + "_K";  // q4_k_s -> q4_K
  return q;
}

}  // namespace moesweep
