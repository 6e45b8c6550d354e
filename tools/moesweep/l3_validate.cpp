#include "l3_validate.hpp"

#include <fmt/format.h>

#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

void print_validation(const Validation& v, const ValidationRun& in) {
  fmt::print(
      "cache models against the engine: {} twins at {} thread(s); usable L3 {:.2f} MiB "
      "(measured), nominal {:.1f} MiB; t0 calibrated at the largest pool\n",
      v.points.size(), in.threads, in.effective / 1048576.0, in.nominal / 1048576.0);
  fmt::print("{:>10} {:>16}", "pool MiB", "measured S_TG");
  for (size_t m = 0; m < v.models.size(); ++m)
    fmt::print(" {:>10}", fmt::format("model {}", m + 1));
  fmt::print("\n");
  for (size_t i = 0; i < v.points.size(); ++i) {
    const ValidationPoint& p = v.points[i];
    fmt::print("{:>10.2f} {:>9.1f} +-{:<5.1f}", p.pool_bytes / 1048576.0, p.measured_tps,
               p.measured_ci95);
    for (const ValidatedModel& m : v.models)
      fmt::print(" {:>5.0f} ({:>2.0f}%)", m.predicted_tps[i], 100 * m.hit[i]);
    fmt::print("{}\n", i == v.calibration_point ? "  <- calibration" : "");
  }
  for (size_t m = 0; m < v.models.size(); ++m)
    fmt::print("model {}: {:<32} mean error {:>5.1f}%, max {:>5.1f}%, t0 {:.0f} us\n", m + 1,
               v.models[m].name, 100 * v.models[m].mean_abs_error, 100 * v.models[m].max_abs_error,
               1e6 * v.models[m].t0_seconds);
  fmt::print("best fit on this machine: {}\n", v.best);
}

}  // namespace

void print_l3_validation(const L3ValidationOutput& out) {
  print_validation(out.validation, out.in);
  fmt::print("wrote {}\n", out.file.string());
  if (!out.plot) return;
  for (const auto& png : out.plot->pngs) fmt::print("wrote {}\n", png.string());
  if (out.plot->pngs.empty()) print_wrapped("no plot: " + out.plot->problem);
}

int run_l3_validation(const std::filesystem::path& run, bool plot) {
  print_l3_validation(validate_l3_run(run, plot));
  return 0;
}

}  // namespace moesweep::cli
