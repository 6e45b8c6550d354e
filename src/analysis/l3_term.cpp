#include "analysis/l3_term.hpp"

#include <algorithm>

#include "analysis/cache_sim.hpp"

namespace moesweep {

double HitRateCurve::at(double fraction) const {
  if (pool_fraction.empty() || fraction <= 0) return 0;
  if (fraction >= pool_fraction.back()) return hit_rate.back();
  const auto hi = std::upper_bound(pool_fraction.begin(), pool_fraction.end(), fraction);
  if (hi == pool_fraction.begin()) return hit_rate.front() * fraction / pool_fraction.front();
  const size_t j = static_cast<size_t>(hi - pool_fraction.begin()), i = j - 1;
  const double w = (fraction - pool_fraction[i]) / (pool_fraction[j] - pool_fraction[i]);
  return hit_rate[i] + w * (hit_rate[j] - hit_rate[i]);
}

HitRateCurve hit_rate_curve(const LruCurve& curve, double routed_total_bytes) {
  HitRateCurve c;
  constexpr int kSteps = 128;  // 1/64 of the pool apart, up to twice the pool
  for (int i = 0; i <= kSteps; ++i) {
    const double f = 2.0 * i / kSteps;
    c.pool_fraction.push_back(f);
    c.hit_rate.push_back(curve.at(static_cast<uint64_t>(f * routed_total_bytes)).generation);
  }
  return c;
}

L3Estimate l3_decode_estimate(const L3Inputs& in, const HitRateCurve& curve) {
  L3Estimate e;
  e.hot_fits = in.hot_bytes <= in.l3_bytes;
  e.expert_cache_bytes = e.hot_fits ? in.l3_bytes - in.hot_bytes : 0;
  e.hit_rate =
      in.routed_bytes_total > 0 ? curve.at(e.expert_cache_bytes / in.routed_bytes_total) : 0;
  e.dram_bytes_no_l3 = in.hot_bytes + in.routed_bytes_per_token + in.streamed_bytes;
  e.dram_bytes_with_l3 = (e.hot_fits ? 0 : in.hot_bytes) +
                         in.routed_bytes_per_token * (1 - e.hit_rate) + in.streamed_bytes;
  auto tps = [&](double bytes) { return bytes > 0 ? in.bandwidth_gbps * 1e9 / bytes : 0; };
  e.tps_no_l3 = tps(e.dram_bytes_no_l3);
  e.tps_with_l3 = tps(e.dram_bytes_with_l3);
  return e;
}

nlohmann::json to_json(const L3Estimate& e) {
  return {{"hot_fits", e.hot_fits},
          {"expert_cache_bytes", e.expert_cache_bytes},
          {"hit_rate", e.hit_rate},
          {"dram_bytes_per_token_no_l3", e.dram_bytes_no_l3},
          {"dram_bytes_per_token_with_l3", e.dram_bytes_with_l3},
          {"roofline_tg_no_l3", e.tps_no_l3},
          {"roofline_tg_with_l3", e.tps_with_l3}};
}

}  // namespace moesweep
