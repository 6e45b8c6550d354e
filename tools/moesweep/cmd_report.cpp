// `moesweep report RUN`: Markdown report with tables, environment and PNG
// plots (drawn by scripts/plot) for one run, optionally beside published tables.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "fleet_report.hpp"
#include "report/run_report.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "serve/serve_report.hpp"
#include "util/error.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

struct ReportArgs {
  std::string run;
  std::string db = SqliteStore::default_path().string();
  std::string out;
  std::vector<std::string> references;
  bool no_plots = false;
  int fleet_depth = -1;  // a fleet's figure: S_TG at this depth (-1: the smallest)
};

int run_report(const ReportArgs& a) {
  if (is_fleet_dir(a.run))  // issue 13: merge's fleet directory
    return report_fleet(a.run, {a.fleet_depth, !a.no_plots});
  const bool serve = is_serve_run(a.run);  // issue 12: a serve-bench run
  const LoadedRun run = serve ? LoadedRun{} : load_run(a.run, a.db);
  for (const std::string& note : run.notes) fmt::print(stderr, "[report] note: {}\n", note);
  ReportOptions options;
  options.plots = !a.no_plots;
  for (const std::string& ref : a.references) options.references.push_back(load_run(ref, a.db));
  if (!a.out.empty()) {
    options.out_dir = a.out;
  } else if (serve || !run.run_dir.empty()) {
    options.out_dir = std::filesystem::path(serve ? a.run : run.run_dir) / "report";
  } else {
    options.out_dir = std::filesystem::path("results") / "reports" / run.label;
  }
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) {
    throw UserError(fmt::format("cannot create report directory '{}': {}", options.out_dir.string(),
                                ec.message()),
                    "a directory this user can create and write",
                    "pass --out with a writable directory");
  }
  const ReportOutcome outcome =
      serve ? write_serve_report(load_serve_run(a.run), options.out_dir, options.plots)
            : write_report(run, options);
  fmt::print("report     {}\n", outcome.markdown.string());
  for (const auto& png : outcome.pngs) fmt::print("plot       {}\n", png.string());
  if (options.plots && outcome.pngs.empty()) {
    print_note("moesweep: warning: no plots: " + outcome.plot_problem);
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, CommandRunner& run) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand("report", "write a Markdown report with plots for a run");
  cmd->add_option("run", args->run, "run directory, records.jsonl / JSONL file, or run id")
      ->required();
  cmd->add_option("--db", args->db, "results database for run ids")->capture_default_str();
  cmd->add_option("--out", args->out, "directory for report.md and PNGs (default RUN_DIR/report)");
  cmd->add_option("--reference", args->references,
                  "published table (results/reference/*.jsonl) to draw beside the run; repeatable");
  cmd->add_flag("--no-plots", args->no_plots, "tables only, do not run scripts/plot");
  cmd->add_option("--fleet-depth", args->fleet_depth,
                  "a fleet: the depth (N_KV) of the S_TG-vs-bandwidth figure (default: smallest)");
  cmd->callback([&run, args] { run = [args] { return run_report(*args); }; });
}

}  // namespace moesweep::cli
