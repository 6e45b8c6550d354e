// `moesweep l3 TRACE`: what a routing trace says about caching the experts:
// popularity per layer, reuse distances, the LRU hit-rate curve of routed-
// expert bytes over cache sizes, and the hit rate at this machine's L3 and
// at each hardware profile's; writes l3.json, l3_curve.csv and the plot.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "analysis/l3_analysis.hpp"
#include "commands.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/topology.hpp"
#include "l3_counters.hpp"
#include "report/plots.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

struct L3Options {
  std::string trace;
  std::string out;                    // default: <trace's directory>/l3
  std::vector<std::string> hardware;  // default: every profile with an L3 size
  bool plot = true;
  std::string run;  // a sweep's run directory: its counters beside the prediction
};

std::string mib(uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
}

std::vector<CacheTarget> cache_targets(const std::vector<std::string>& names) {
  std::vector<CacheTarget> out;
  if (const uint64_t here = probe_topology().l3_total_bytes(); here > 0)
    out.push_back({"this machine", here});
  for (const std::string& n : names.empty() ? hardware_profile_names() : names) {
    const HardwareProfile p = load_hardware_profile(n);
    if (p.l3_total_bytes() > 0) out.push_back({p.name, p.l3_total_bytes()});
  }
  return out;
}

void print_analysis(const L3Analysis& a) {
  const TraceModel& m = a.model;
  fmt::print(
      "trace: {} ({}), {} experts per MoE layer, {} used; {} prefill + {} generated tokens\n",
      std::filesystem::path(m.path).filename().string(), m.arch, m.n_expert, m.n_expert_used,
      a.tokens_prefill, a.tokens_generation);
  fmt::print("bytes: routed-expert pool {}, routed per token {}, hot set per token {}\n",
             mib(m.routed_bytes_total), mib(m.routed_bytes_per_token()), mib(m.hot_bytes));
  fmt::print("\npopularity    entropy  (norm)   gini  top10%  zipf_s\n");
  for (const Popularity& p : a.layers)
    fmt::print("  layer {:>3}  {:>7.2f}  {:>6.3f}  {:>5.3f}  {:>5.1f}%  {:>6.2f}\n", p.layer,
               p.entropy_bits, p.entropy_normalised, p.gini, 100 * p.top10_share, p.zipf_s);
  fmt::print("  mean       {:>7.2f}  {:>6.3f}  {:>5.3f}  {:>5.1f}%  {:>6.2f}\n",
             a.mean.entropy_bits, a.mean.entropy_normalised, a.mean.gini, 100 * a.mean.top10_share,
             a.mean.zipf_s);
  fmt::print("\nreuse (LRU stack distance of warm reads)\n");
  for (const LayerReuse& r : a.reuse)
    fmt::print("  layer {:>3}  {:>8} reads, {:>5.1f}% cold, median {}, p90 {}\n", r.layer, r.reads,
               r.reads ? 100.0 * r.cold / r.reads : 0.0, mib(r.median_bytes), mib(r.p90_bytes));
  fmt::print("\nLRU hit rate of routed-expert bytes   generation  prefill\n");
  for (const CurvePoint& c : a.curve)
    fmt::print("  {:>12}                         {:>6.1f}%  {:>6.1f}%\n", mib(c.cache_bytes),
               100 * c.hit.generation, 100 * c.hit.prefill);
  fmt::print("  unlimited (cold misses only)         {:>6.1f}%  {:>6.1f}%\n",
             100 * a.ceiling.generation, 100 * a.ceiling.prefill);
  fmt::print(
      "\npredicted for decode (generation reads); the hot set stays in L3 first when it fits\n");
  for (const TargetPrediction& t : a.targets)
    fmt::print(
        "  {:<14} L3 {:>10}: hot set {}, experts get {:>10} -> hit {:>5.1f}% "
        "(experts alone in L3: {:.1f}%)\n",
        t.target.name, mib(t.target.l3_bytes), t.hot_fits ? "fits    " : "too big ",
        mib(t.expert_cache_bytes), 100 * t.with_hot.generation, 100 * t.alone.generation);
}

std::filesystem::path trace_file(const std::string& arg) {
  std::filesystem::path p = arg;
  std::error_code ec;  // a path that does not resolve is the trace reader's to name
  if (std::filesystem::is_directory(p, ec)) p /= "routing.trace.zst";
  return p;
}

int run_l3(const L3Options& o) {
  const std::filesystem::path file = trace_file(o.trace);
  const RoutingTrace trace = read_routing_trace(file);
  if (trace.steps.empty())
    throw UserError(fmt::format("routing trace '{}' has no routing steps", file.string()),
                    "a trace of at least one token",
                    "record it again with a non-zero --prompt or --gen");
  const L3Analysis a = analyse_trace(trace, cache_targets(o.hardware));
  print_analysis(a);
  if (!o.run.empty()) print_counters_beside_prediction(a, o.run);
  const std::filesystem::path out =
      o.out.empty() ? file.parent_path() / "l3" : std::filesystem::path(o.out);
  std::filesystem::create_directories(out);
  std::ofstream(out / "l3.json") << to_json(a).dump(1) << "\n";
  std::ofstream(out / "l3_curve.csv") << curve_csv(a);
  fmt::print("\nwrote {} and {}\n", (out / "l3.json").string(), (out / "l3_curve.csv").string());
  if (o.plot) {
    const std::string title = fmt::format("{}: {} experts, {} used",
                                          std::filesystem::path(a.model.path).filename().string(),
                                          a.model.n_expert, a.model.n_expert_used);
    const PlotOutcome plot = draw_plots({{"l3_curve", l3_plot_data(a, title)}}, out);
    if (plot.pngs.empty())
      fmt::print("no plot: {}\n", plot.problem);
    else
      for (const auto& png : plot.pngs) fmt::print("wrote {}\n", png.string());
  }
  return 0;
}

}  // namespace

void add_l3_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<L3Options>();
  CLI::App* cmd = app.add_subcommand(
      "l3", "expert popularity, reuse and predicted L3 hit rate from a routing trace");
  cmd->add_option("trace", o->trace, "routing.trace.zst (or the directory holding it)")->required();
  cmd->add_option("--out", o->out, "output directory (default: <trace dir>/l3)");
  cmd->add_option("--hardware", o->hardware,
                  "hardware profiles to predict for (default: every profile with an L3 size)")
      ->delimiter(',');
  cmd->add_option("--run", o->run,
                  "a sweep's run directory: its measured L3 counters beside the prediction");
  cmd->add_flag("!--no-plot", o->plot, "skip the PNG (scripts/plot, matplotlib)");
  cmd->callback([&run, o] { run = [o] { return run_l3(*o); }; });
}

}  // namespace moesweep::cli
