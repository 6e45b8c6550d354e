#include "report/predict_table.hpp"

#include <fmt/format.h>

#include "predict/cost_per_token.hpp"
#include "report/markdown_table.hpp"

namespace moesweep {
namespace {

// The speed the cost figures are taken at: the calibrated one, else the roofline.
double speed_for_cost(const Prediction& p, bool* at_roofline) {
  *at_roofline = !p.expected_tps.has_value();
  return p.expected_tps ? *p.expected_tps : p.bound_tps;
}

std::string fits_cell(const Prediction& p) {
  if (!(p.hardware.memory_gb > 0)) return "?";
  return p.model.total_bytes / 1e9 <= p.hardware.memory_gb ? "yes" : "NO";
}

}  // namespace

std::string prediction_table(const std::vector<Prediction>& predictions) {
  MarkdownTable t({"hardware", "bandwidth GB/s", "memory GB", "weights fit", "roofline t/s",
                   "efficiency", "expected t/s", "price $", "t/s per $1k", "power W", "J/token"});
  std::string notes;
  for (const Prediction& p : predictions) {
    bool roof = false;
    const double tps = speed_for_cost(p, &roof);
    const CostPerToken c = cost_per_token(p.hardware, tps);
    const std::string mark = roof ? " (roofline)" : "";
    t.add_row({p.hardware.name, fmt::format("{:.0f} ({})", p.bandwidth_gbps, p.bandwidth_source),
               p.hardware.memory_gb > 0 ? fmt::format("{:.0f}", p.hardware.memory_gb) : "?",
               fits_cell(p), fmt::format("{:.2f}", p.bound_tps),
               p.calibration ? fmt::format("{:.0f}%", 100 * p.calibration->efficiency) : "n/a",
               p.expected_tps ? fmt::format("{:.2f}", *p.expected_tps) : "n/a (not calibrated)",
               p.hardware.price_usd > 0 ? fmt::format("{:.0f}", p.hardware.price_usd) : "-",
               c.tps_per_kusd ? fmt::format("{:.3f}{}", *c.tps_per_kusd, mark) : "-",
               p.hardware.power_w > 0 ? fmt::format("{:.0f}", p.hardware.power_w) : "-",
               c.joules_per_token ? fmt::format("{:.1f}{}", *c.joules_per_token, mark) : "-"});
    notes += fmt::format("- {}: price {}; power {}{}\n", p.hardware.name, price_text(p.hardware),
                         power_text(p.hardware),
                         p.calibration ? "; efficiency from " + p.calibration->source : "");
  }
  return t.render() + "\n" + notes;
}

std::string cost_lines(const Prediction& p) {
  bool roof = false;
  const double tps = speed_for_cost(p, &roof);
  const CostPerToken c = cost_per_token(p.hardware, tps);
  const std::string at = roof ? "at the roofline" : "at the expected speed";
  std::string out =
      fmt::format("price: {}\npower: {}\n", price_text(p.hardware), power_text(p.hardware));
  if (c.tps_per_kusd) out += fmt::format("{:.3f} tok/s per $1000 {}\n", *c.tps_per_kusd, at);
  if (c.joules_per_token) out += fmt::format("{:.1f} J per token {}\n", *c.joules_per_token, at);
  return out;
}

}  // namespace moesweep
