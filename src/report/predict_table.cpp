#include "report/predict_table.hpp"

#include <fmt/format.h>

#include "predict/cost_per_token.hpp"
#include "util/markdown_table.hpp"
#include "util/terminal_text.hpp"

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

namespace {

std::vector<std::string> wide_row(const Prediction& p) {
  bool roof = false;
  const CostPerToken c = cost_per_token(p.hardware, speed_for_cost(p, &roof));
  const std::string mark = roof ? " (roofline)" : "";
  return {p.hardware.name,
          fmt::format("{:.0f} ({})", p.bandwidth_gbps, p.bandwidth_source),
          p.hardware.memory_gb > 0 ? fmt::format("{:.0f}", p.hardware.memory_gb) : "?",
          fits_cell(p),
          fmt::format("{:.2f}", p.bound_tps),
          p.calibration ? fmt::format("{:.0f}%", 100 * p.calibration->efficiency) : "n/a",
          p.expected_tps ? fmt::format("{:.2f}", *p.expected_tps) : "n/a (not calibrated)",
          p.hardware.price_usd > 0 ? fmt::format("{:.0f}", p.hardware.price_usd) : "-",
          c.tps_per_kusd ? fmt::format("{:.3f}{}", *c.tps_per_kusd, mark) : "-",
          p.hardware.power_w > 0 ? fmt::format("{:.0f}", p.hardware.power_w) : "-",
          c.joules_per_token ? fmt::format("{:.1f}{}", *c.joules_per_token, mark) : "-"};
}

std::vector<std::string> compact_row(const Prediction& p) {
  bool roof = false;
  const CostPerToken c = cost_per_token(p.hardware, speed_for_cost(p, &roof));
  const std::string mark = roof ? "*" : "";
  return {p.hardware.name,
          fmt::format("{:.0f}", p.bandwidth_gbps),
          fits_cell(p),
          fmt::format("{:.2f}", p.bound_tps),
          p.calibration ? fmt::format("{:.0f}%", 100 * p.calibration->efficiency) : "n/a",
          p.expected_tps ? fmt::format("{:.2f}", *p.expected_tps) : "n/a",
          c.tps_per_kusd ? fmt::format("{:.3f}{}", *c.tps_per_kusd, mark) : "-",
          c.joules_per_token ? fmt::format("{:.1f}{}", *c.joules_per_token, mark) : "-"};
}

}  // namespace

std::string prediction_table(const std::vector<Prediction>& predictions, TableWidth width) {
  const bool wide = width == TableWidth::kWide;
  MarkdownTable t =
      wide ? MarkdownTable({"hardware", "bandwidth GB/s", "memory GB", "weights fit",
                            "roofline t/s", "efficiency", "expected t/s", "price $", "t/s per $1k",
                            "power W", "J/token"})
           : MarkdownTable({"hardware", "bandwidth GB/s", "weights fit", "roofline t/s",
                            "efficiency", "expected t/s", "t/s per $1k", "J/token"});
  std::string notes;
  for (const Prediction& p : predictions) {
    t.add_row(wide ? wide_row(p) : compact_row(p));
    const std::string note = fmt::format(
        "- {}: price {}; power {}{}{}", p.hardware.name, price_text(p.hardware),
        power_text(p.hardware), p.calibration ? "; efficiency from " + p.calibration->source : "",
        wide ? "" : fmt::format("; bandwidth {}", p.bandwidth_source));
    notes += (wide ? note : wrap_words(note, kTerminalWidth, "  ")) + "\n";
  }
  if (!wide) notes += "- `*`: at the roofline (no calibration); memory, price and power: --wide\n";
  return t.render() + "\n" + notes;
}

std::string cost_lines(const Prediction& p) {
  bool roof = false;
  const double tps = speed_for_cost(p, &roof);
  const CostPerToken c = cost_per_token(p.hardware, tps);
  const std::string at = roof ? "at the roofline" : "at the expected speed";
  std::string out =
      wrap_words(fmt::format("price: {}", price_text(p.hardware)), kTerminalWidth, "    ") + "\n" +
      wrap_words(fmt::format("power: {}", power_text(p.hardware)), kTerminalWidth, "    ") + "\n";
  if (c.tps_per_kusd) out += fmt::format("{:.3f} tok/s per $1000 {}\n", *c.tps_per_kusd, at);
  if (c.joules_per_token) out += fmt::format("{:.1f} J per token {}\n", *c.joules_per_token, at);
  return out;
}

}  // namespace moesweep
