// `moesweep compare BASE NEW`: the regression gate. Joins two runs on the full
// point key, tests each point's samples, prints Markdown (or --json), and
// exits 4 when a real regression beyond --threshold is found, 5 when it could
// not have seen one (inconclusive), 0 when it could and found none.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "compare_counts.hpp"
#include "results/compare.hpp"
#include "results/compare_format.hpp"
#include "results/compare_sides.hpp"
#include "results/count_compare.hpp"
#include "results/sqlite_store.hpp"
#include "serve/serve_compare.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

struct CompareArgs {
  std::string base, fresh;
  std::string db = SqliteStore::default_path().string();
  std::string threshold = "5";
  double alpha = 0.05;
  std::string metric = "both";
  std::string test = "auto";
  std::string family = family_name(CompareOptions{}.family);
  std::string ignore;
  std::string on;
  bool json = false;
  bool wide = false;  // every column on stdout (a terminal gets the compact table)
  std::string out;    // the wide report also into this file (compare.md)
  bool allow_environment_change = false;
  std::string engines;    // "a,b": two engines of one run (sweep --engine a,b)
  std::string tolerance;  // --metric COUNTS: the exact gate's tolerance in percent
};

double parse_threshold_percent(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  if (const std::optional<double> v = parse_decimal(text); v && *v >= 0 && *v < 100)
    return *v / 100;
  throw UserError("--threshold '" + text + "' is not a percentage",
                  "a number from 0 to 100, e.g. 5", "pass --threshold 5 for a 5% minimum effect");
}

int compare_serve(const CompareArgs& a, const CompareOptions& options) {
  const ServeComparison c = compare_serve_dirs(a.base, a.fresh, options);
  fmt::print("{}", a.json ? serve_comparison_json(c).dump(2) + "\n"
                          : serve_comparison_markdown(c, options));
  std::fflush(stdout);
  check_serve_common_ground(c, a.base, a.fresh);
  return c.regressions > 0 ? exit_code::kRegression : exit_code::kOk;
}

int run_compare(const CompareArgs& a) {
  CompareOptions options;
  options.threshold = parse_threshold_percent(a.threshold);
  if (!(a.alpha > 0 && a.alpha < 1)) {
    throw UserError(fmt::format("--alpha {} is outside (0, 1)", a.alpha), "e.g. 0.05",
                    "pass --alpha 0.05");
  }
  options.alpha = a.alpha;
  const bool counts = is_count_metric_list(a.metric);  // the exact gate (compare_counts.hpp)
  if (!counts) options.metrics = parse_metrics(a.metric);
  if (!counts && !a.tolerance.empty())
    throw UserError("--tolerance is for count metrics", "--metric instructions,... with it",
                    "use --threshold for times, or give count metrics");
  options.test = parse_test_kind(a.test);
  options.family = parse_family(a.family);
  options.ignore = parse_ignored_fields(a.ignore);
  if (!a.on.empty()) {
    if (!a.ignore.empty()) {
      throw UserError("--on and --ignore given together", "one of them",
                      "--on FIELDS joins on those fields only; --ignore FIELDS on all but those");
    }
    options.ignore = fields_not_in(parse_ignored_fields(a.on, "--on"));
  }
  options.allow_environment_change = a.allow_environment_change;
  if (counts)
    return run_count_compare({a.base, a.fresh, a.engines, a.db, a.allow_environment_change},
                             a.metric, a.tolerance, options.ignore, {a.json, a.wide, a.out});
  if (is_serve_run(a.base) || is_serve_run(a.fresh))  // issue 12: serve-bench runs
    return compare_serve(a, options);
  const auto [base, fresh] =
      load_compare_sides({a.base, a.fresh, a.engines, a.db, a.allow_environment_change});
  for (const LoadedRun* run : {&base, &fresh})
    for (const std::string& note : run->notes) print_note("[compare] note: " + note);
  const Comparison c = compare_runs(base, fresh, options);
  check_same_machine_class(c);
  if (!a.out.empty()) write_file_atomically(a.out, comparison_markdown(c, TableWidth::kWide));
  if (a.json) {
    fmt::print("{}\n", comparison_json(c).dump(2));
  } else {
    fmt::print("{}", comparison_markdown(c, a.wide ? TableWidth::kWide : TableWidth::kCompact));
  }
  std::fflush(stdout);
  if (c.points.empty()) {
    throw UserError(fmt::format("'{}' and '{}' have no point in common", a.base, a.fresh),
                    "runs of the same sweep (same model, quant, threads, depths, ...)",
                    "see the nearest keys listed above; --ignore FIELD,... leaves fields out of "
                    "the join");
  }
  return gate_exit_code(c.gate);
}

}  // namespace

void add_compare_command(CLI::App& app, CommandRunner& run) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "compare two runs point by point; exit 4 on a statistically real regression, 5 when the "
      "runs could not have seen one of --threshold (inconclusive)");
  cmd->add_option("base", args->base,
                  "baseline: run directory, baseline set, per-class baseline store, "
                  "records.jsonl / sweep-bench JSONL file, or run id")
      ->required();
  cmd->add_option("new", args->fresh, "the run to check, same forms as BASE (not with --engines)");
  cmd->add_option("--engines", args->engines,
                  "BASE,NEW: compare two engines of the one run given (sweep --engine a,b)");
  cmd->add_option("--db", args->db, "results database for run ids")->capture_default_str();
  cmd->add_option("--threshold", args->threshold,
                  "minimum slowdown in percent that counts as a regression")
      ->capture_default_str();
  cmd->add_option("--alpha", args->alpha, "significance level of the two-sided test")
      ->capture_default_str();
  cmd->add_option("--metric", args->metric,
                  "pp, tg or both; or counts of --counters sim runs: instructions, data_reads, "
                  "data_writes, d1_misses, ll_misses, dram_bytes (comma list)")
      ->capture_default_str();
  cmd->add_option("--tolerance", args->tolerance,
                  "with count metrics: the change in percent a count may show and still be the "
                  "same (default 0.01 for instructions and data reads/writes, 1 for misses)");
  cmd->add_option("--test", args->test,
                  "auto (paired t on the pairs of one run's engines; else Mann-Whitney from 4 "
                  "samples a side, Welch below), welch, mwu, paired-t or signed-rank")
      ->capture_default_str();
  cmd->add_option("--family", args->family,
                  "false-alarm control over the cells: geomean+holm (the geometric mean ratio "
                  "per metric decides what the gate could see, any one cell under Holm fails it "
                  "too; alpha split in halves), holm (any one cell), geomean or none")
      ->capture_default_str();
  cmd->add_option("--ignore", args->ignore,
                  "comma list of key fields left out of the join (e.g. model,poll)");
  cmd->add_option("--on", args->on,
                  "join on these key fields only (e.g. threads, to sit beside a published table)");
  cmd->add_flag("--json", args->json, "print JSON instead of Markdown");
  cmd->add_flag("--wide", args->wide,
                "print every column (means, p values, every key field) instead of the table that "
                "fits 120 columns");
  cmd->add_option("--out", args->out, "also write the report with every column to this file");
  cmd->add_flag("--allow-environment-change", args->allow_environment_change,
                "compare runs of different machine classes (CPU, L3, CPU features) instead of "
                "refusing; the report says so at the top");
  cmd->callback([&run, args] { run = [args] { return run_compare(*args); }; });
}

}  // namespace moesweep::cli
