#include "analysis/l3_term.hpp"

namespace moesweep {

L3Estimate l3_decode_estimate(const L3Inputs& in, const HitRates& hits) {
  L3Estimate e;
  e.hits = hits;
  e.dram_bytes_no_l3 = in.hot_bytes + in.routed_bytes_per_token + in.streamed_bytes;
  e.dram_bytes_with_l3 = in.hot_bytes * (1 - hits.hot_generation) +
                         in.routed_bytes_per_token * (1 - hits.generation) + in.streamed_bytes;
  auto tps = [&](double bytes) { return bytes > 0 ? in.bandwidth_gbps * 1e9 / bytes : 0; };
  e.tps_no_l3 = tps(e.dram_bytes_no_l3);
  e.tps_with_l3 = tps(e.dram_bytes_with_l3);
  return e;
}

nlohmann::json to_json(const L3Estimate& e) {
  return {{"hit_rate", e.hits.generation},
          {"hot_hit_rate", e.hits.hot_generation},
          {"dram_bytes_per_token_no_l3", e.dram_bytes_no_l3},
          {"dram_bytes_per_token_with_l3", e.dram_bytes_with_l3},
          {"roofline_tg_no_l3", e.tps_no_l3},
          {"roofline_tg_with_l3", e.tps_with_l3}};
}

}  // namespace moesweep
