#pragma once
// What `moesweep bisect` measures of one engine build: a count per token
// (--counters sim, deterministic at one thread: each build is measured once)
// in every cell of the profile, and whether it is worse than the good
// build's beyond the threshold.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace moesweep::cli {

// "tg_instructions_per_token": the phase and the --counters sim field.
struct BisectMetric {
  std::string text;   // as given
  bool tg = true;     // TG, else PP
  std::string field;  // instructions_per_token, ll_misses_per_token, ...
};
// UserError (exit 2) naming the metrics there are.
BisectMetric parse_bisect_metric(const std::string& text);

using CellValues = std::map<std::string, double>;  // point key -> count per token

// One build's counts, and the run that has them (callgrind's dumps of each
// timed phase in its callgrind/ folder, for callgrind_annotate).
struct CountedBuild {
  CellValues cells;
  std::map<std::string, std::filesystem::path> dumps;  // point key -> the phase's last kept dump
};

// One sweep of `engine` alone (registered in $MOESWEEP_ENGINES) under
// valgrind, on a twin `twin_for` loads too ("" = none: the newest `engine`
// reads), its dumps kept; UserError when it has no value of the metric in any cell.
CountedBuild measure_counts(const std::string& engine, const std::string& profile,
                            const BisectMetric& metric, const std::filesystem::path& out_dir,
                            const std::string& twin_for = "");

// "per function, ...: callgrind_annotate --threshold=100 GOOD/callgrind/p0-tg-rep0.callgrind
// and BAD/...": where to look next, for the cell that grew most ("" without dumps).
// The dumps are of the metric's phase (measure_counts keeps those).
std::string per_function_hint(const CountedBuild& good, const CountedBuild& bad);

// The largest relative growth of any cell common to both (new / good - 1);
// UserError when they share none.
double worst_growth(const CellValues& good, const CellValues& fresh);

// Reference values in a file (bisect hands them to each judge).
void write_cell_values(const std::filesystem::path& file, const CellValues& v);
CellValues read_cell_values(const std::filesystem::path& file);

// git in `dir`; its first line of output. UserError (exit 2) when git fails.
std::string git_in(const std::filesystem::path& dir, const std::vector<std::string>& args);
// "+1.203%"
std::string growth_text(double growth);
void bisect_say(const std::string& line);  // "[bisect] ..." on stderr

}  // namespace moesweep::cli
