#include "hw/roofline.hpp"

namespace moesweep {

std::optional<double> decode_roofline_tps(double bandwidth_gbps, double active_bytes_per_token) {
  if (bandwidth_gbps <= 0 || active_bytes_per_token <= 0) return std::nullopt;
  return bandwidth_gbps * 1e9 / active_bytes_per_token;
}

Roofline compute_roofline(const RooflineInputs& in) {
  Roofline r;
  r.tg_bound_tps = decode_roofline_tps(in.bandwidth_gbps, in.active_bytes_per_token);
  if (in.peak_gflops > 0 && in.flops_per_token > 0)
    r.pp_bound_tps = in.peak_gflops * 1e9 / in.flops_per_token;
  return r;
}

std::optional<double> efficiency(double measured_tps, std::optional<double> bound_tps) {
  if (!bound_tps || *bound_tps <= 0 || measured_tps < 0) return std::nullopt;
  return measured_tps / *bound_tps;
}

double implied_bandwidth_gbps(double tokens_per_s, double active_bytes_per_token) {
  return tokens_per_s * active_bytes_per_token / 1e9;
}

double required_bandwidth_gbps(double target_tps, double active_bytes_per_token,
                               double efficiency_fraction) {
  if (efficiency_fraction <= 0) return 0;
  return target_tps * active_bytes_per_token / 1e9 / efficiency_fraction;
}

RecordRoofline roofline_for_record(const RooflineInputs& in, double speed_pp, double speed_tg,
                                   std::string bandwidth_source) {
  RecordRoofline r;
  r.active_bytes_per_token = in.active_bytes_per_token;
  r.bandwidth_gbps = in.bandwidth_gbps;
  r.bandwidth_source = in.bandwidth_gbps > 0 ? std::move(bandwidth_source) : "";
  const Roofline bounds = compute_roofline(in);
  r.tg_bound_tps = bounds.tg_bound_tps;
  r.pp_bound_tps = bounds.pp_bound_tps;
  if (speed_tg > 0) r.efficiency_tg = efficiency(speed_tg, r.tg_bound_tps);
  if (speed_pp > 0) r.efficiency_pp = efficiency(speed_pp, r.pp_bound_tps);
  return r;
}

}  // namespace moesweep
