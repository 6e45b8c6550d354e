// `moesweep l3 TRACE`: what a routing trace says about caching the experts:
// popularity per layer, reuse distances, the LRU hit-rate curve over cache
// sizes (hot set in the stream), and the hit rate at this machine's nominal
// and measured L3 and at each hardware profile's, with the band of cache
// models over their L3 domains; writes l3.json, l3_curve.csv and the plot.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "analysis/l3_analysis.hpp"
#include "commands.hpp"
#include "l3_counters.hpp"
#include "l3_per_token.hpp"
#include "l3_print.hpp"
#include "l3_validate.hpp"
#include "report/plots.hpp"
#include "util/error.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

struct L3Options {
  std::string trace;
  std::string out;                    // default: <trace's directory>/l3
  std::vector<std::string> hardware;  // default: every profile with an L3 size
  bool plot = true;
  std::string run;  // a sweep's run directory: its counters beside the prediction
  bool per_token = false;
  PerTokenOptions per_token_options;
};

std::filesystem::path trace_file(const std::string& arg) {
  std::filesystem::path p = arg;
  std::error_code ec;  // a path that does not resolve is the trace reader's to name
  if (std::filesystem::is_directory(p, ec)) p /= "routing.trace.zst";
  return p;
}

int run_l3(const L3Options& o) {
  if (o.per_token && !is_run_directory(o.trace))
    throw UserError(fmt::format("--per-token: '{}' is not a sweep's run directory", o.trace),
                    "a run recorded with `moesweep sweep --trace-routing`",
                    "pass the run's directory (it holds records.jsonl and tokens.jsonl)");
  if (o.per_token_options.simulated && !o.per_token)
    throw UserError("--simulated without --per-token", "--simulated with --per-token",
                    "add --per-token");
  if (o.per_token) return run_l3_per_token(o.trace, o.per_token_options, o.plot);
  if (is_run_directory(o.trace)) return run_l3_validation(o.trace, o.plot);
  const std::filesystem::path file = trace_file(o.trace);
  const RoutingTrace trace = read_routing_trace(file);
  if (trace.steps.empty())
    throw UserError(fmt::format("routing trace '{}' has no routing steps", file.string()),
                    "a trace of at least one token",
                    "record it again with a non-zero --prompt or --gen");
  const L3Analysis a = analyse_trace(trace, l3_cache_targets(o.hardware));
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
      print_wrapped("no plot: " + plot.problem);
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
  cmd->add_option("trace", o->trace,
                  "routing.trace.zst (or the directory holding it); or a working-set run "
                  "recorded with --trace-routing: the cache models validated against it")
      ->required();
  cmd->add_option("--out", o->out, "output directory (default: <trace dir>/l3)");
  cmd->add_option("--hardware", o->hardware,
                  "hardware profiles to predict for (default: every profile with an L3 size)")
      ->delimiter(',');
  cmd->add_option("--run", o->run,
                  "a sweep's run directory: its measured L3 counters beside the prediction");
  cmd->add_flag("--per-token", o->per_token,
                "with a run recorded with --trace-routing: each token's decode time against its "
                "predicted miss bytes at every byte-LRU size from 1 MiB to 1 GiB; the best size, "
                "its interval, the slope and a test against no cache term (docs/l3.md)");
  cmd->add_flag("--simulated", o->per_token_options.simulated,
                "with --per-token: fit each token's simulated LL misses (sweep --counters sim "
                "--sim-per-token) instead of its time, and compare them with the model's");
  cmd->add_option("--interrupted-factor", o->per_token_options.interrupted_factor,
                  "with --per-token: leave out tokens slower than this many times their call's "
                  "median (preempted; 0 keeps every token)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--skip-first", o->per_token_options.skip_first,
                  "with --per-token: leave out each call's first N tokens (their cache state is "
                  "what ran before the call)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--bootstrap", o->per_token_options.bootstrap,
                  "with --per-token: bootstrap resamples of the test's p-value")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_flag("!--no-plot", o->plot, "skip the PNG (scripts/plot, matplotlib)");
  cmd->callback([&run, o] { run = [o] { return run_l3(*o); }; });
}

}  // namespace moesweep::cli
