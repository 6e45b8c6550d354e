// `moesweep compare BASE NEW`: the regression gate. Joins two runs on the full
// point key, tests each point's samples, prints Markdown (or --json), and
// exits 4 when a real regression beyond --threshold is found.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "results/baseline_store.hpp"
#include "results/compare.hpp"
#include "results/compare_format.hpp"
#include "results/engine_sides.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "serve/serve_compare.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

struct CompareArgs {
  std::string base, fresh;
  std::string db = SqliteStore::default_path().string();
  std::string threshold = "5";
  double alpha = 0.05;
  std::string metric = "both";
  std::string test = "auto";
  std::string ignore;
  std::string on;
  bool json = false;
  bool allow_environment_change = false;
  std::string engines;  // "a,b": two engines of one run (sweep --engine a,b)
};

double parse_threshold_percent(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0 && v < 100) return v / 100;
  } catch (const std::exception&) {
  }
  throw UserError("--threshold '" + text + "' is not a percentage",
                  "a number from 0 to 100, e.g. 5", "pass --threshold 5 for a 5% minimum effect");
}

// BASE as given, or, when it is a store of per-class baselines
// (results/baselines/ci), the class folder of NEW's machine class.
std::string base_for(const CompareArgs& a, const LoadedRun& fresh) {
  if (!is_baseline_store(a.base)) return a.base;
  const MachineClass machine = fresh.meta ? machine_class_of(*fresh.meta) : MachineClass{};
  if (!machine.known) {
    throw UserError(
        fmt::format("'{}' has no meta.json, so its machine class is unknown", a.fresh),
        fmt::format("a run directory, whose class picks the baseline in '{}'", a.base),
        fmt::format("name the run directory, or one class folder of '{}' as BASE", a.base));
  }
  if (auto found = find_baseline_class(a.base, machine)) return found->dir.string();
  const auto classes = baseline_classes(a.base);
  // Allowed to cross classes and there is only one: use it (the report says so at the top).
  if (a.allow_environment_change && classes.size() == 1) return classes[0].dir.string();
  return require_baseline_class(a.base, machine).string();  // throws, naming the classes
}

// BASE and NEW, or with --engines A,B the two engines of the one run BASE.
std::pair<LoadedRun, LoadedRun> load_sides(const CompareArgs& a) {
  if (a.engines.empty()) {
    if (a.fresh.empty())
      throw UserError("compare: only one run given", "BASE and NEW, or one run and --engines A,B",
                      "name the run to check, or two engines of the run with --engines");
    LoadedRun fresh = load_run(a.fresh, a.db);
    LoadedRun base = load_run(base_for(a, fresh), a.db);
    return {std::move(base), std::move(fresh)};
  }
  if (!a.fresh.empty())
    throw UserError("--engines with two runs", "one run: compare RUN --engines BASE,NEW",
                    "give the one run (sweep --engine a,b) whose two engines to compare");
  return engine_pair(load_run(a.base, a.db), a.engines);
}

int run_compare(const CompareArgs& a) {
  CompareOptions options;
  options.threshold = parse_threshold_percent(a.threshold);
  if (!(a.alpha > 0 && a.alpha < 1)) {
    throw UserError(fmt::format("--alpha {} is outside (0, 1)", a.alpha), "e.g. 0.05",
                    "pass --alpha 0.05");
  }
  options.alpha = a.alpha;
  options.metrics = parse_metrics(a.metric);
  options.test = parse_test_kind(a.test);
  options.ignore = parse_ignored_fields(a.ignore);
  if (!a.on.empty()) {
    if (!a.ignore.empty()) {
      throw UserError("--on and --ignore given together", "one of them",
                      "--on FIELDS joins on those fields only; --ignore FIELDS on all but those");
    }
    options.ignore = fields_not_in(parse_ignored_fields(a.on, "--on"));
  }
  options.allow_environment_change = a.allow_environment_change;
  if (is_serve_run(a.base) || is_serve_run(a.fresh))  // issue 12: serve-bench runs
    return compare_serve_command(a.base, a.fresh, options, a.json);
  const auto [base, fresh] = load_sides(a);
  for (const LoadedRun* run : {&base, &fresh})
    for (const std::string& note : run->notes) fmt::print(stderr, "[compare] note: {}\n", note);
  const Comparison c = compare_runs(base, fresh, options);
  check_same_machine_class(c);
  if (a.json) {
    fmt::print("{}\n", comparison_json(c).dump(2));
  } else {
    fmt::print("{}", comparison_markdown(c));
  }
  std::fflush(stdout);
  if (c.points.empty()) {
    throw UserError(fmt::format("'{}' and '{}' have no point in common", a.base, a.fresh),
                    "runs of the same sweep (same model, quant, threads, depths, ...)",
                    "see the nearest keys listed above; --ignore FIELD,... leaves fields out of "
                    "the join");
  }
  return c.regressions > 0 ? exit_code::kRegression : exit_code::kOk;
}

}  // namespace

void add_compare_command(CLI::App& app, CommandRunner& run) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "compare two runs point by point; exit 4 on a statistically real regression");
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
  cmd->add_option("--metric", args->metric, "pp, tg or both")->capture_default_str();
  cmd->add_option("--test", args->test,
                  "auto (Mann-Whitney from 4 samples a side, else Welch), welch or mwu")
      ->capture_default_str();
  cmd->add_option("--ignore", args->ignore,
                  "comma list of key fields left out of the join (e.g. model,poll)");
  cmd->add_option("--on", args->on,
                  "join on these key fields only (e.g. threads, to sit beside a published table)");
  cmd->add_flag("--json", args->json, "print JSON instead of Markdown");
  cmd->add_flag("--allow-environment-change", args->allow_environment_change,
                "compare runs of different machine classes (CPU, L3, CPU features) instead of "
                "refusing; the report says so at the top");
  cmd->callback([&run, args] { run = [args] { return run_compare(*args); }; });
}

}  // namespace moesweep::cli
