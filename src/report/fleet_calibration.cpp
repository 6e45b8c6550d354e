#include "report/fleet_calibration.hpp"

#include <fmt/format.h>

#include "util/markdown_table.hpp"

namespace moesweep {

std::string fleet_fit_text(const Fleet& f, const FleetFit& fit) {
  std::string out =
      fmt::format("fleet {} (plan {}): decode efficiency fitted over {} hosts at N_KV={}\n",
                  f.dir.string(), f.plan_id, fit.hosts.size(), fit.n_kv);
  out += fmt::format("  {:<24} {:>5} {:>9} {:>9} {:>10} {:>7} {:>10}\n", "hosts", "CPUs", "GB/s@t",
                     "S_TG", "roofline", "eff.", "residual");
  for (size_t i = 0; i < fit.hosts.size(); ++i) {
    const FleetHost& h = fit.hosts[i];
    const std::string at =
        h.bandwidth_threads > 0 ? fmt::format("@{}", h.bandwidth_threads) : "@peak";
    out += fmt::format("  {:<24} {:>5} {:>9} {:>9.2f} {:>10.2f} {:>6.1f}% {:>+10.3f}\n", h.hosts,
                       h.logical_cpus, fmt::format("{:.1f}{}", *h.bandwidth_gbps, at), h.s_tg,
                       *h.roofline_tps, 100 * *h.efficiency, fit.residual_tps[i]);
  }
  out += fmt::format(
      "fitted efficiency: {:.2f}% of the roofline (standard error {:.2f} points; hosts "
      "{:.1f}%..{:.1f}%)\n",
      100 * fit.efficiency, 100 * fit.std_error, 100 * fit.min_efficiency,
      100 * fit.max_efficiency);
  return out;
}

std::string calibration_fits_text(const CalibrationFits& fits) {
  MarkdownTable t({"calibration", "samples", "efficiency", "± points", "RMS residual t/s",
                   "single factor's RMS t/s"});
  auto row = [&](const FactorFit& f) {
    t.add_row({f.group, fmt::format("{}", f.samples), fmt::format("{:.2f}%", 100 * f.efficiency),
               fmt::format("{:.2f}", 100 * f.std_error), fmt::format("{:.3f}", f.rms_residual_tps),
               fmt::format("{:.3f}", f.rms_single_tps)});
  };
  row(fits.single);
  for (const FactorFit& f : fits.by_threads) row(f);
  for (const FactorFit& f : fits.by_depth) row(f);
  std::string out = fmt::format(
      "\nthe single factor against one per thread count and per depth bucket, over every "
      "(host, threads, N_KV) decode with a measured bandwidth ({} samples):\n\n",
      fits.single.samples);
  out += t.render();
  if (fits.by_threads.empty() && fits.by_depth.empty())
    out += "(no thread count or depth bucket has 2 or more samples to fit on its own)\n";
  return out;
}

}  // namespace moesweep
