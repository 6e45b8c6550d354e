#include "predict_print.hpp"

#include <fmt/format.h>

#include "model/quant_types.hpp"
#include "predict_l3.hpp"
#include "report/predict_table.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

void print_model(const PredictInputs& o, const Prediction& p) {
  const ModelCost& m = p.model;
  fmt::print("model:    {}: {:.0f} B params, {:.1f} B active per token\n", m.label,
             m.total_params / 1e9, m.active_params / 1e9);
  fmt::print("weights in memory: {:.0f} GB", m.total_bytes / 1e9);
  if (p.hardware.memory_gb > 0)
    fmt::print(" ({} in {:.0f} GB)",
               m.total_bytes / 1e9 < p.hardware.memory_gb ? "fits" : "does NOT fit",
               p.hardware.memory_gb);
  fmt::print("\nbytes per decoded token: {:.2f} GB", m.bytes_per_token / 1e9);
  if (!o.model.empty())
    fmt::print(" (weights {:.2f} GB + KV {:.3f} GB at depth {}, {} cache)",
               (m.bytes_per_token - m.kv_bytes) / 1e9, m.kv_bytes / 1e9, o.depth, o.cache_type);
  else
    fmt::print(" (weights only: no shape, so no KV estimate)");
}

}  // namespace

void print_prediction(const PredictInputs& o, const Prediction& p, const std::string& trace) {
  print_wrapped(fmt::format("hardware: {} - {:.1f} GB/s ({})", p.hardware.name, p.bandwidth_gbps,
                            p.bandwidth_source));
  print_model(o, p);
  fmt::print("\ndecode upper bound (roofline): {:.2f} tok/s\n", p.bound_tps);
  if (!trace.empty())  // the same roofline with the routing trace's L3 term
    print_l3_term({trace, o.model, o.quant, find_quant_type(o.quant).approx_bpw / 8,
                   p.model.kv_bytes, static_cast<double>(p.hardware.l3_total_bytes()),
                   p.hardware.cores, p.hardware.l3_domains, p.bandwidth_gbps});
  if (p.calibration) {
    print_wrapped(fmt::format("efficiency {:.0f}% of the roofline, from {}",
                              100 * p.calibration->efficiency, p.calibration->source));
    fmt::print("expected decode: {:.2f} tok/s\n", *p.expected_tps);
  } else {
    fmt::print(
        "efficiency: not calibrated (no measured runs here, no reference runs in the profile)\n");
  }
  fmt::print("{}", cost_lines(p));  // wrapped where it is made
  if (o.target_tps > 0) {
    print_wrapped(fmt::format(
        "for {:.2f} tok/s: {:.0f} GB/s at the roofline, {:.0f} GB/s at {:.0f}% efficiency; "
        "{:.0f} GB of memory for the weights",
        o.target_tps, p.required_gbps_at_roofline, p.required_gbps_at_efficiency,
        100 * p.target_efficiency, p.model.total_bytes / 1e9));
  }
}

}  // namespace moesweep::cli
