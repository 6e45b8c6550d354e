#include "analysis/l3_validation.hpp"

#include <algorithm>
#include <cmath>

namespace moesweep {
namespace {

// Seconds one token spends on bytes, given the hit rates (t0 aside).
double byte_seconds(const ValidationPoint& p, double hit, double hot_hit,
                    const ValidationRates& r) {
  auto read = [&](double bytes, double h) {
    return bytes * ((1 - h) / (r.out_of_cache_gbps * 1e9) + h / (r.in_cache_gbps * 1e9));
  };
  return read(p.routed_bytes_per_token, hit) + read(p.hot_bytes_per_token, hot_hit) +
         (r.dram_gbps > 0 ? p.kv_bytes_per_token / (r.dram_gbps * 1e9) : 0);
}

// Predictions from the hit rates, t0 from the calibration point.
void predict(ValidatedModel& m, const std::vector<ValidationPoint>& pts, size_t calib,
             const ValidationRates& r) {
  const ValidationPoint& c = pts[calib];
  m.t0_seconds =
      std::max(0.0, 1 / c.measured_tps - byte_seconds(c, m.hit[calib], m.hot_hit[calib], r));
  double sum = 0;
  int n = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    const double t = m.t0_seconds + byte_seconds(pts[i], m.hit[i], m.hot_hit[i], r);
    m.predicted_tps.push_back(t > 0 ? 1 / t : 0);
    if (i == calib) continue;
    const double e = std::abs(m.predicted_tps[i] - pts[i].measured_tps) / pts[i].measured_tps;
    sum += e, ++n;
    m.max_abs_error = std::max(m.max_abs_error, e);
  }
  m.mean_abs_error = n > 0 ? sum / n : 0;
}

}  // namespace

Validation validate_working_set(std::vector<ValidationPoint> points, const CacheMachine& effective,
                                uint64_t nominal_l3, const ValidationRates& rates) {
  Validation v;
  std::sort(points.begin(), points.end(), [](const ValidationPoint& a, const ValidationPoint& b) {
    return a.pool_bytes < b.pool_bytes;
  });
  v.points = std::move(points);
  if (v.points.empty() || rates.out_of_cache_gbps <= 0 || rates.in_cache_gbps <= 0) return v;
  v.calibration_point = v.points.size() - 1;
  CacheMachine nominal = effective;
  nominal.layout = shared_layout(effective.layout.threads(), nominal_l3);
  std::vector<std::pair<std::string, std::pair<const CacheMachine*, CacheModel>>> variants;
  for (CacheModel m : kAllCacheModels)
    variants.push_back({model_name(m) + ", measured L3", {&effective, m}});
  if (nominal_l3 > 0)
    variants.push_back({"byte-LRU, nominal L3", {&nominal, CacheModel::kByteLru}});
  for (const auto& [name, how] : variants) {
    ValidatedModel m;
    m.name = name;
    for (const ValidationPoint& p : v.points) {
      const HitRates h = model_hits(model_block_accesses(p.trace, trace_sizes(p.trace.model)),
                                    *how.first, how.second);
      m.hit.push_back(h.generation);
      m.hot_hit.push_back(h.hot_generation);
    }
    predict(m, v.points, v.calibration_point, rates);
    v.models.push_back(std::move(m));
  }
  const auto best = std::min_element(v.models.begin(), v.models.end(),
                                     [](const ValidatedModel& a, const ValidatedModel& b) {
                                       return a.mean_abs_error < b.mean_abs_error;
                                     });
  if (best != v.models.end()) v.best = best->name;
  return v;
}

}  // namespace moesweep
