#include "l3_validate.hpp"

#include <fmt/format.h>


#include "analysis/l3_analysis.hpp"
#include "analysis/l3_validation_run.hpp"
#include "hw/topology.hpp"
#include "report/plots.hpp"
#include "util/json_file.hpp"

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

bool is_run_directory(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p) && std::filesystem::exists(p / "records.jsonl");
}

int run_l3_validation(const std::filesystem::path& run, bool plot) {
  const ValidationRun in = read_validation_run(run);
  CacheMachine machine;
  const Topology topo = probe_topology();
  const uint64_t domains = std::max<size_t>(1, topo.l3_domains.size());
  machine.layout = domain_layout(topo, in.threads, in.effective / domains);
  machine.matrices = trace_expert_matrices(in.points.front().trace.model);
  const Validation v = validate_working_set(in.points, machine, in.nominal, in.rates);
  print_validation(v, in);
  const auto out = run / "l3_validation";
  std::filesystem::create_directories(out);
  const nlohmann::json j = to_json(v, in);
  write_file_atomically(out / "validation.json", j.dump(1) + "\n");
  fmt::print("wrote {}\n", (out / "validation.json").string());
  if (plot) {
    const PlotOutcome p = draw_plots({{"l3_validation", j}}, out);
    for (const auto& png : p.pngs) fmt::print("wrote {}\n", png.string());
    if (p.pngs.empty()) fmt::print("no plot: {}\n", p.problem);
  }
  return 0;
}

}  // namespace moesweep::cli
