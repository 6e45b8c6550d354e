#pragma once
// The L3 term of the decode roofline. Without it every weight byte a token
// reads comes from DRAM; with it, the per-token hot set (attention, router,
// shared experts, norms, dense layers, lm head) stays in L3 when it fits
// (LRU keeps it: it is reused every token, sooner than any expert), the
// routed experts share what is left, and only their misses go to DRAM:
//   DRAM bytes/token = hot (if it does not fit) + routed x (1 - hit) + streamed (KV)
// The hit rate comes from a routing trace's LRU curve, expressed as a
// function of the fraction of the routed-expert pool the cache holds, so a
// twin's trace can stand in for a model with the same expert count and
// routing. Pure arithmetic, unit-tested on numbers.
#include <nlohmann/json.hpp>

#include <vector>

namespace moesweep {

class LruCurve;

// Hit rate of routed-expert bytes against cache size / all routed bytes.
struct HitRateCurve {
  std::vector<double> pool_fraction;  // rising, from 0
  std::vector<double> hit_rate;       // same length
  // Linear between points; 0 at or below 0; the last value beyond the last point.
  double at(double fraction) const;
};
// Samples `curve` (generation-phase reads) at fractions 0..2 of `routed_total` bytes.
HitRateCurve hit_rate_curve(const LruCurve& curve, double routed_total_bytes);

struct L3Inputs {
  double hot_bytes = 0;               // per token, read by every token
  double routed_bytes_per_token = 0;  // experts a token reads (n_used per MoE layer)
  double routed_bytes_total = 0;      // every expert of every layer
  double streamed_bytes = 0;          // per token, never cached (the KV cache read)
  double l3_bytes = 0;
  double bandwidth_gbps = 0;
};

struct L3Estimate {
  bool hot_fits = false;
  double expert_cache_bytes = 0;                        // L3 left for experts
  double hit_rate = 0;                                  // of routed-expert bytes
  double dram_bytes_no_l3 = 0, dram_bytes_with_l3 = 0;  // per token
  double tps_no_l3 = 0, tps_with_l3 = 0;                // decode rooflines
};

L3Estimate l3_decode_estimate(const L3Inputs& in, const HitRateCurve& curve);
nlohmann::json to_json(const L3Estimate& e);

}  // namespace moesweep
