#pragma once
// The cache models against the engine: the working-set experiment's S_TG
// predicted from its own routing traces. Per twin, each cache model gives
// the hit rates of routed-expert and hot-set bytes at the machine's measured
// usable L3 (and byte-LRU at the nominal one, to show what sysfs would have
// predicted); a token then takes
//   t = t0 + sum over bytes of (missed / G_out + hit / G_in) + KV / BW
// with G_out and G_in the expert GEMV's measured out-of-cache and in-cache
// speeds (`hw --cache`; the roofline at the measured bandwidth when the GEMV
// was not measured) and t0, the fixed cost of a token (graph, attention,
// sampling), calibrated once at the largest pool, where every model agrees
// the experts come from DRAM. Every other point is a prediction; the error
// says which model fits this machine.
#include <string>
#include <vector>

#include "analysis/l3_model.hpp"
#include "analysis/routing_trace.hpp"

namespace moesweep {

struct ValidationPoint {
  std::string model;  // the twin's name
  double pool_bytes = 0;
  double measured_tps = 0, measured_ci95 = 0;
  double routed_bytes_per_token = 0, hot_bytes_per_token = 0, kv_bytes_per_token = 0;
  RoutingTrace trace;  // recorded while the sweep measured this twin
};

struct ValidationRates {
  double out_of_cache_gbps = 0;  // expert GEMV from DRAM (else the DRAM bandwidth)
  double in_cache_gbps = 0;      // expert GEMV from the cache (else the cache bandwidth)
  double dram_gbps = 0;          // the KV read
};

struct ValidatedModel {
  std::string name;
  std::vector<double> hit, hot_hit;  // per point, generation phase
  std::vector<double> predicted_tps;
  double t0_seconds = 0;
  double mean_abs_error = 0, max_abs_error = 0;  // relative, over the predicted points
};

struct Validation {
  std::vector<ValidationPoint> points;  // rising pool
  std::vector<ValidatedModel> models;
  size_t calibration_point = 0;  // the largest pool
  std::string best;              // the model with the smallest mean error
};

// `effective`: the machine with its measured usable L3 per domain;
// `nominal_l3`: hwloc's total (byte-LRU on one shared cache of that size).
Validation validate_working_set(std::vector<ValidationPoint> points, const CacheMachine& effective,
                                uint64_t nominal_l3, const ValidationRates& rates);

}  // namespace moesweep
