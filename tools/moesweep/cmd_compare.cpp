// `moesweep compare BASE NEW`: the regression gate. Joins two runs on the full
// point key, tests each point's samples, prints Markdown (or --json), and
// exits 4 when a real regression beyond --threshold is found, 5 when it could
// not have seen one (inconclusive), 0 when it could and found none.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "compare_counts.hpp"
#include "compare_options.hpp"
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
  CompareChoice choice;
  std::string ignore;
  std::string on;
  bool json = false;
  bool wide = false;    // every column on stdout (a terminal gets the compact table)
  std::string out;      // the wide report also into this file (compare.md)
  std::string engines;  // "a,b": two engines of one run (sweep --engine a,b)
};

int compare_serve(const CompareArgs& a, const CompareOptions& options) {
  const ServeComparison c = compare_serve_dirs(a.base, a.fresh, options);
  fmt::print("{}", a.json ? serve_comparison_json(c).dump(2) + "\n"
                          : serve_comparison_markdown(c, options));
  std::fflush(stdout);
  check_serve_common_ground(c, a.base, a.fresh);
  return c.regressions > 0 ? exit_code::kRegression : exit_code::kOk;
}

int run_compare(const CompareArgs& a) {
  CompareOptions options = a.choice.options();
  const bool counts = a.choice.counts();  // the exact gate (compare_counts.hpp)
  options.ignore = parse_ignored_fields(a.ignore);
  if (!a.on.empty()) {
    if (!a.ignore.empty()) {
      throw UserError("--on and --ignore given together", "one of them",
                      "--on FIELDS joins on those fields only; --ignore FIELDS on all but those");
    }
    options.ignore = fields_not_in(parse_ignored_fields(a.on, "--on"));
  }
  if (counts)
    return run_count_compare({a.base, a.fresh, a.engines, a.db, options.allow_environment_change},
                             a.choice.metric, a.choice.tolerance, options.ignore,
                             {a.json, a.wide, a.out});
  if (is_serve_run(a.base) || is_serve_run(a.fresh))  // issue 12: serve-bench runs
    return compare_serve(a, options);
  const auto [base, fresh] =
      load_compare_sides({a.base, a.fresh, a.engines, a.db, options.allow_environment_change});
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
  add_compare_choice(*cmd, args->choice,
                     "pp, tg or both; or counts of --counters sim runs: instructions, "
                     "data_reads, data_writes, d1_misses, ll_misses, dram_bytes (comma list)");
  cmd->add_option("--ignore", args->ignore,
                  "comma list of key fields left out of the join (e.g. model,poll)");
  cmd->add_option("--on", args->on,
                  "join on these key fields only (e.g. threads, to sit beside a published table)");
  cmd->add_flag("--json", args->json, "print JSON instead of Markdown");
  cmd->add_flag("--wide", args->wide,
                "print every column (means, p values, every key field) instead of the table that "
                "fits 120 columns");
  cmd->add_option("--out", args->out, "also write the report with every column to this file");
  cmd->callback([&run, args] { run = [args] { return run_compare(*args); }; });
}

}  // namespace moesweep::cli
