#pragma once
// `moesweep l3-run --simulate` (l3_sim.hpp's pieces): each twin under
// valgrind's simulated LL (--counters sim) at each LL size, one sweep per
// size through run_l3_sweep (l3_experiment.hpp), and the trace-based model
// beside it (the MoE twins' routing traced in a native run of the same twin
// and tokens; the dense twin's weights). l3_sim.json, l3_sim.md and the plots
// go into one folder of runs. It prints nothing: the CLI hears each point.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "experiments/l3_experiment.hpp"
#include "experiments/l3_sim.hpp"
#include "report/plots.hpp"

namespace moesweep {

struct L3SimRunEvents {
  // The folder of runs, made; the MoE twins' expert FFN.
  std::function<void(const std::filesystem::path& dir, int expert_ff)> started;
  // Each LL size of a twin, once measured.
  std::function<void(const L3SimTwin& twin, const L3SimPoint& point)> point;
};

struct L3SimRunOutcome {
  std::filesystem::path dir;
  std::vector<L3SimCurve> curves;
  std::string markdown;  // l3_sim.md's text
  PlotOutcome plots;
};

// `o` gives the database, command line, progress and out_dir (the folder of
// runs goes under it); `so` the twins, sizes and the measurement.
L3SimRunOutcome run_l3_sim_experiment(const L3SimOptions& so, const L3RunOptions& o,
                                      const L3SimRunEvents& events = {});

}  // namespace moesweep
