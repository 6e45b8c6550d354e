#include "l3_sim_run.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>

#include "analysis/l3_sim.hpp"
#include "model/gguf_inspect.hpp"
#include "report/plots.hpp"
#include "results/run_source.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/parse_list.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

namespace {

L3SimOptions sim_options(const L3SimCli& s, const L3RunOptions& o) {
  L3SimOptions out;
  out.ll_bytes =
      s.sim_llc.empty() ? default_sim_llc_sizes() : parse_sim_llc(s.sim_llc, "--sim-llc");
  out.skews.clear();
  for (const std::string& w : split_list(s.skews, ',')) {
    try {
      out.skews.push_back(std::stod(w));
    } catch (const std::exception&) {
      throw UserError(fmt::format("--skews: '{}' is not a number", w), "e.g. 0,1.5",
                      "give routing skews as a comma list");
    }
  }
  out.dense = o.dense;
  out.pool_bytes = static_cast<uint64_t>(s.pool_mib * 1048576.0);
  out.n_gen = o.run.n_gen;
  out.repetitions = o.run.repetitions;
  return out;
}

// The first ok record of a run, or nullptr.
std::optional<Record> first_ok(const fs::path& run) {
  for (Record& r : read_records_jsonl(run / "records.jsonl"))
    if (r.ok) return std::move(r);
  return std::nullopt;
}

fs::path trace_in(const fs::path& run) {
  for (const fs::directory_entry& e : fs::directory_iterator(run)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("routing-", 0) == 0 && name.ends_with(".trace.zst")) return e.path();
  }
  throw UserError(fmt::format("the traced run {} left no routing trace", run.string()),
                  "routing-*.trace.zst in the run", "rerun l3-run --simulate");
}

L3SimCurve measure_twin(const L3SimOptions& so, const L3SimTwin& twin, int expert_ff, int dense_ff,
                        const L3RunOptions& o, const fs::path& dir) {
  L3SimCurve c;
  c.twin = twin;
  std::string model_path;
  for (uint64_t ll : so.ll_bytes) {
    L3SimPoint p;
    p.ll_bytes = ll;
    const fs::path run =
        run_l3_sweep(l3_sim_settings(so, twin, expert_ff, dense_ff, ll), o, dir, false);
    p.run_dir = run.string();
    if (const auto rec = first_ok(run)) {
      take_simulated(p, rec->tg.counters);
      model_path = rec->params.model_path;
    } else {
      p.sim_unavailable = "the point failed (see its run)";
    }
    c.points.push_back(p);
    fmt::print("{} LL {:.0f} MiB: {}\n", twin.label, ll / 1048576.0,
               p.sim_hit ? fmt::format("LL hit rate {:.1f}%, DRAM {:.3f} MB/token",
                                       100 * *p.sim_hit, p.sim_dram.value_or(0) / 1e6)
                         : p.sim_unavailable);
  }
  if (twin.dense) {
    if (!model_path.empty())
      add_dense_model(c, trace_model_from(inspect_gguf(model_path)).hot_bytes);
  } else {  // the routing of the same twin and tokens, traced natively (tracing under valgrind
            // would count the tap's own work)
    const fs::path traced =
        run_l3_sweep(l3_sim_settings(so, twin, expert_ff, dense_ff, 0), o, dir, true);
    add_trace_model(c, read_routing_trace(trace_in(traced)));
  }
  return c;
}

}  // namespace

void add_l3_sim_options(CLI::App& cmd, L3SimCli& s) {
  cmd.add_flag(
      "--simulate", s.simulate,
      "instead: the twins under valgrind's simulated LL (--counters sim) at each --sim-llc "
      "size, with the trace-based model beside them (about 100x slower than native)");
  cmd.add_option("--sim-llc", s.sim_llc,
                 "with --simulate: LL sizes (default 4MiB,8MiB,...,512MiB)");
  cmd.add_option("--skews", s.skews, "with --simulate: routing skews of the MoE twins")
      ->capture_default_str();
  cmd.add_option("--sim-pool-mib", s.pool_mib, "with --simulate: the MoE twins' routed-expert pool")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 65536.0));
}

int run_l3_sim(const L3SimCli& s, const L3RunOptions& o) {
  const L3SimOptions so = sim_options(s, o);
  const int expert_ff = sim_expert_ff(so);
  const int dense_ff = so.dense ? sim_dense_ff(so, expert_ff) : 0;
  const fs::path dir = fs::path(o.out_dir) / fmt::format("{:%Y%m%dT%H%M%SZ}-{}",
                                                         fmt::gmtime(std::time(nullptr)), so.name);
  fs::create_directories(dir);
  fmt::print("l3-run --simulate into {}: {} experts of FFN {} ({} used), pool {:.0f} MiB\n",
             dir.string(), so.experts, expert_ff, so.experts_used, so.pool_bytes / 1048576.0);
  std::vector<L3SimCurve> curves;
  for (const L3SimTwin& twin : l3_sim_twins(so))
    curves.push_back(measure_twin(so, twin, expert_ff, dense_ff, o, dir));
  const std::string md =
      l3_sim_markdown(curves, fmt::format("{} experts, FFN {}", so.experts, expert_ff));
  write_file_atomically(dir / "l3_sim.json", l3_sim_json(curves).dump(1) + "\n");
  write_file_atomically(dir / "l3_sim.md", md);
  const PlotOutcome plots = draw_plots(l3_sim_plot_data(curves), dir);
  fmt::print("\n{}{}\nwrote {}\n", md,
             plots.pngs.empty() ? "plots: none (" + plots.problem + ")\n" : "", dir.string());
  return 0;
}

}  // namespace moesweep::cli
