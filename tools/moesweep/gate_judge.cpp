#include "gate_judge.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <tuple>

#include "results/compare_format.hpp"
#include "results/gate_report.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

namespace {

void judge_say(const std::string& line) {
  fmt::print(stderr, "[gate] {}\n", line);
}

void write_beside(const fs::path& run, const std::string& name, const std::string& text) {
  write_file_atomically(run / name, text);
}

// gate.md appended to the job summary GitHub Actions shows.
void append_step_summary(const std::string& markdown) {
  const char* file = std::getenv("GITHUB_STEP_SUMMARY");
  if (!file || !*file) return;
  std::ofstream out(file, std::ios::app);
  out << markdown << "\n";
  if (!out) judge_say(fmt::format("note: could not append to $GITHUB_STEP_SUMMARY ({})", file));
}

}  // namespace

int judge_gate(const GateSides& g, const std::pair<std::string, std::string>& labels,
               const fs::path& run, std::chrono::steady_clock::time_point started) {
  const CompareChoice& choice = g.choice;
  const CompareOptions options = choice.options();
  GateReport report;
  const auto [base, fresh] = load_compare_sides(g.sides);
  std::string markdown;
  if (g.counts) {
    const CountComparison c =
        compare_counts(base, fresh, parse_count_metrics(choice.metric),
                       choice.tolerance.empty() ? 0 : parse_count_tolerance(choice.tolerance), {});
    markdown = count_comparison_markdown(c);
    write_beside(run, "compare.json", count_comparison_json(c).dump(2) + "\n");
    report = gate_report_of(c);
  } else {
    const Comparison c = compare_runs(base, fresh, options);
    check_same_machine_class(c);
    if (c.points.empty())
      throw UserError(
          fmt::format("the gate's two sides have no point in common ({})", run.string()),
          "both sides measured over the same plan", "see compare.md beside the run");
    markdown = comparison_markdown(c);
    write_beside(run, "compare.json", comparison_json(c).dump(2) + "\n");
    report = gate_report_of(c);
  }
  std::tie(report.base, report.fresh) = labels;
  if (g.failed_points > 0 && report.exit_code == exit_code::kOk) {  // what failed was not seen
    report.exit_code = exit_code::kInconclusive;
    report.line = fmt::format(
        "inconclusive: {} point(s) of the sweep failed and were not compared "
        "(compare.md lists them); the rest: {}",
        g.failed_points, report.line);
  }
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report.run_dir = run.string();
  const std::string summary = gate_markdown(report);
  write_beside(run, "compare.md", markdown);
  write_beside(run, "gate.md", summary);
  write_beside(run, "junit.xml", gate_junit_xml(report));
  append_step_summary(summary);
  fmt::print("{}\n{}", markdown, summary);
  std::fflush(stdout);
  judge_say(fmt::format("{} (exit {}): {}/gate.md, junit.xml, compare.md",
                        gate_outcome_word(report.exit_code), report.exit_code, run.string()));
  return report.exit_code;
}

}  // namespace moesweep::cli
