#include "experiments/l3_sim_experiment.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "analysis/routing_trace.hpp"
#include "model/gguf_inspect.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace fs = std::filesystem;

namespace {

// The routing trace a traced sweep left in its run.
fs::path sim_routing_trace_in(const fs::path& run) {
  for (const fs::directory_entry& e : fs::directory_iterator(run)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("routing-", 0) == 0 && name.ends_with(".trace.zst")) return e.path();
  }
  throw UserError(fmt::format("the traced run {} left no routing trace", run.string()),
                  "routing-*.trace.zst in the run", "rerun l3-run --simulate");
}

L3SimCurve measure_sim_twin(const L3SimOptions& so, const L3SimTwin& twin, int expert_ff,
                            int dense_ff, const L3RunOptions& o, const fs::path& dir,
                            const L3SimRunEvents& events) {
  L3SimCurve c;
  c.twin = twin;
  std::string model_path;
  for (uint64_t ll : so.ll_bytes) {
    L3SimPoint p;
    p.ll_bytes = ll;
    const L3Sweep sweep =
        run_l3_sweep(l3_sim_settings(so, twin, expert_ff, dense_ff, ll), o, dir, false);
    p.run_dir = sweep.run.string();
    const auto ok = std::find_if(sweep.records.begin(), sweep.records.end(),
                                 [](const Record& r) { return r.ok; });
    if (ok != sweep.records.end()) {
      take_simulated(p, ok->tg.counters);
      model_path = ok->params.model_path;
    } else {
      p.sim_unavailable = "the point failed (see its run)";
    }
    c.points.push_back(p);
    if (events.point) events.point(twin, p);
  }
  if (twin.dense) {
    if (!model_path.empty())
      add_dense_model(c, trace_model_from(inspect_gguf(model_path)).hot_bytes);
  } else {  // the routing of the same twin and tokens, traced natively (tracing under valgrind
            // would count the tap's own work)
    const L3Sweep traced =
        run_l3_sweep(l3_sim_settings(so, twin, expert_ff, dense_ff, 0), o, dir, true);
    add_trace_model(c, read_routing_trace(sim_routing_trace_in(traced.run)));
  }
  return c;
}

}  // namespace

L3SimRunOutcome run_l3_sim_experiment(const L3SimOptions& so, const L3RunOptions& o,
                                      const L3SimRunEvents& events) {
  const int expert_ff = sim_expert_ff(so);
  const int dense_ff = so.dense ? sim_dense_ff(so, expert_ff) : 0;
  L3SimRunOutcome out;
  out.dir =
      o.out_dir / fmt::format("{:%Y%m%dT%H%M%SZ}-{}", fmt::gmtime(std::time(nullptr)), so.name);
  fs::create_directories(out.dir);
  if (events.started) events.started(out.dir, expert_ff);
  for (const L3SimTwin& twin : l3_sim_twins(so))
    out.curves.push_back(measure_sim_twin(so, twin, expert_ff, dense_ff, o, out.dir, events));
  out.markdown =
      l3_sim_markdown(out.curves, fmt::format("{} experts, FFN {}", so.experts, expert_ff));
  write_file_atomically(out.dir / "l3_sim.json", l3_sim_json(out.curves).dump(1) + "\n");
  write_file_atomically(out.dir / "l3_sim.md", out.markdown);
  out.plots = draw_plots(l3_sim_plot_data(out.curves), out.dir);
  return out;
}

}  // namespace moesweep
