#pragma once
// The L3 term of the decode roofline. Without it every weight byte a token
// reads comes from DRAM; with it, only the misses do:
//   DRAM bytes/token = hot x (1 - hot hit) + routed x (1 - routed hit) + streamed (KV)
// The hit rates come from simulating the trace's whole read stream, hot set
// included (cache_sim.hpp), at the cache size itself: nothing is assumed to
// stay resident and nothing is interpolated. Pure arithmetic, unit-tested on
// numbers.
#include <nlohmann/json.hpp>

#include "analysis/cache_sim.hpp"

namespace moesweep {

struct L3Inputs {
  double hot_bytes = 0;               // per token, read by every token
  double routed_bytes_per_token = 0;  // experts a token reads (n_used per MoE layer)
  double streamed_bytes = 0;          // per token, never cached (the KV cache read)
  double bandwidth_gbps = 0;
};

struct L3Estimate {
  HitRates hits;                                        // generation: routed and hot
  double dram_bytes_no_l3 = 0, dram_bytes_with_l3 = 0;  // per token
  double tps_no_l3 = 0, tps_with_l3 = 0;                // decode rooflines
};

L3Estimate l3_decode_estimate(const L3Inputs& in, const HitRates& hits);
nlohmann::json to_json(const L3Estimate& e);

}  // namespace moesweep
