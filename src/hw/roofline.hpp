#pragma once
// Decode is a memory stream: each token reads the active weights and the KV
// cache once, so tokens/s can never beat bandwidth / active bytes per token.
// Prefill reuses each weight across a ubatch, so its ceiling is compute:
// peak FLOP/s / FLOP per token. Pure arithmetic over plain numbers, so the
// sweep runner, the tables and `predict` share one definition (here in hw,
// below src/sweep and src/report).
#include <optional>
#include <string>

namespace moesweep {

struct RooflineInputs {
  double active_bytes_per_token = 0;  // ActiveBytes::total() at the record's depth
  double bandwidth_gbps = 0;          // measured (moesweep hw --bandwidth) or theoretical
  double flops_per_token = 0;         // ActiveBytes::flops; 0 when unknown
  double peak_gflops = 0;             // HardwareProfile::peak_gflops; 0 when unknown
};

struct Roofline {
  std::optional<double> tg_bound_tps;  // decode ceiling, tokens/s
  std::optional<double> pp_bound_tps;  // prefill ceiling, tokens/s (compute side)
};

Roofline compute_roofline(const RooflineInputs& in);
// bandwidth (1e9 B/s) / bytes per token; nullopt if either is not positive.
std::optional<double> decode_roofline_tps(double bandwidth_gbps, double active_bytes_per_token);
// measured / bound, as a fraction (0.38 = 38 %); nullopt without a bound.
std::optional<double> efficiency(double measured_tps, std::optional<double> bound_tps);
// The bandwidth a decode speed implies: tokens/s x bytes per token, in GB/s.
double implied_bandwidth_gbps(double tokens_per_s, double active_bytes_per_token);
// Bandwidth needed for `target_tps` at a given efficiency (1.0 = at the roofline).
double required_bandwidth_gbps(double target_tps, double active_bytes_per_token,
                               double efficiency_fraction = 1.0);

// What each sweep record carries (its extra.roofline, results/point_extras.hpp):
// call once per record with
// the record's depth-specific active bytes and the machine's bandwidth.
struct RecordRoofline {
  double active_bytes_per_token = 0;
  double bandwidth_gbps = 0;
  std::string bandwidth_source;  // "measured" | "theoretical" | ""
  std::optional<double> tg_bound_tps, pp_bound_tps;
  std::optional<double> efficiency_tg, efficiency_pp;
};
RecordRoofline roofline_for_record(const RooflineInputs& in, double speed_pp, double speed_tg,
                                   std::string bandwidth_source = "measured");

}  // namespace moesweep
