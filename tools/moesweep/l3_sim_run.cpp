#include "l3_sim_run.hpp"

#include <fmt/format.h>

#include "experiments/l3_sim_experiment.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep::cli {
namespace {

L3SimOptions sim_options(const L3SimCli& s, const L3RunOptions& o) {
  L3SimOptions out;
  out.ll_bytes =
      s.sim_llc.empty() ? default_sim_llc_sizes() : parse_sim_llc(s.sim_llc, "--sim-llc");
  out.skews.clear();
  for (const std::string& w : split_list(s.skews, ',')) {
    const std::optional<double> v = parse_decimal(w);
    if (!v)
      throw UserError(fmt::format("--skews: '{}' is not a number", w),
                      "decimal numbers, e.g. 0,1.5", "give routing skews as a comma list");
    out.skews.push_back(*v);
  }
  out.dense = o.dense;
  out.pool_bytes = static_cast<uint64_t>(s.pool_mib * 1048576.0);
  out.n_gen = o.run.n_gen;
  out.repetitions = o.run.repetitions;
  return out;
}

void print_sim_point(const L3SimTwin& twin, const L3SimPoint& p) {
  fmt::print("{} LL {:.0f} MiB: {}\n", twin.label, p.ll_bytes / 1048576.0,
             p.sim_hit ? fmt::format("LL hit rate {:.1f}%, DRAM {:.3f} MB/token", 100 * *p.sim_hit,
                                     p.sim_dram.value_or(0) / 1e6)
                       : p.sim_unavailable);
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
  L3SimRunEvents events;
  events.started = [&](const std::filesystem::path& dir, int expert_ff) {
    fmt::print("l3-run --simulate into {}: {} experts of FFN {} ({} used), pool {:.0f} MiB\n",
               dir.string(), so.experts, expert_ff, so.experts_used, so.pool_bytes / 1048576.0);
  };
  events.point = print_sim_point;
  const L3SimRunOutcome out = run_l3_sim_experiment(so, o, events);
  fmt::print("\n{}{}\nwrote {}\n", out.markdown,
             out.plots.pngs.empty() ? "plots: none (" + out.plots.problem + ")\n" : "",
             out.dir.string());
  return 0;
}

}  // namespace moesweep::cli
