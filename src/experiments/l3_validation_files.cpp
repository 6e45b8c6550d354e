// `moesweep l3 RUN` and l3-run's last step: the validation of the cache
// models computed and written into the run (experiments/l3_validation_run.hpp).
#include <algorithm>

#include "analysis/l3_analysis.hpp"
#include "experiments/l3_validation_run.hpp"
#include "hw/topology.hpp"
#include "run/run_directory.hpp"
#include "util/json_file.hpp"

namespace moesweep {

bool is_run_directory(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p) && std::filesystem::exists(p / "records.jsonl");
}

L3ValidationOutput validate_l3_run(const std::filesystem::path& run, bool plot,
                                   const RunLock& /*held: the writes below are the run's*/) {
  L3ValidationOutput out;
  out.in = read_validation_run(run);
  CacheMachine machine;
  const Topology topo = probe_topology();
  const uint64_t domains = std::max<size_t>(1, topo.l3_domains.size());
  machine.layout = domain_layout(topo, out.in.threads, out.in.effective / domains);
  machine.matrices = trace_expert_matrices(out.in.points.front().trace.model);
  out.validation = validate_working_set(out.in.points, machine, out.in.nominal, out.in.rates);
  out.json = to_json(out.validation, out.in);
  const std::filesystem::path dir = run / "l3_validation";
  std::filesystem::create_directories(dir);
  out.file = dir / "validation.json";
  write_file_atomically(out.file, out.json.dump(1) + "\n");
  if (plot) out.plot = draw_plots({{"l3_validation", out.json}}, dir);
  return out;
}

L3ValidationOutput validate_l3_run(const std::filesystem::path& run, bool plot) {
  const RunLock lock(run);
  return validate_l3_run(run, plot, lock);
}

}  // namespace moesweep
