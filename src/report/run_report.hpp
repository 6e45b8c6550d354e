#pragma once
// `moesweep report RUN`: one Markdown file with the run's environment, its
// sweep-bench tables (one per configuration), a threads table, counters, and
// links to the PNG plots that scripts/plot draws next to it.
#include <filesystem>
#include <string>
#include <vector>

#include "results/run_source.hpp"

namespace moesweep {

struct ReportOptions {
  std::filesystem::path out_dir;      // report.md and the PNGs go here
  std::vector<LoadedRun> references;  // published tables drawn beside the run
  bool plots = true;
};

struct ReportOutcome {
  std::filesystem::path markdown;
  std::vector<std::filesystem::path> pngs;
  std::string plot_problem;  // why there are no plots, when there are none
};

// Markdown only (no files): the body of report.md, PNG names relative.
std::string report_markdown(const LoadedRun& run, const ReportOptions& options,
                            const std::vector<std::filesystem::path>& pngs,
                            const std::string& plot_problem);

ReportOutcome write_report(const LoadedRun& run, const ReportOptions& options);

}  // namespace moesweep
