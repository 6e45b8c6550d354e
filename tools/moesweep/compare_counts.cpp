#include "compare_counts.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "results/count_compare.hpp"
#include "util/json_file.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {

int run_count_compare(const CompareSides& sides, const std::string& metrics,
                      const std::string& tolerance, const std::set<std::string>& ignore,
                      const CompareOutput& output) {
  const std::vector<CountMetric> wanted = parse_count_metrics(metrics);
  const double tol = tolerance.empty() ? 0 : parse_count_tolerance(tolerance);  // 0: per metric
  const auto [base, fresh] = load_compare_sides(sides);
  for (const LoadedRun* run : {&base, &fresh})
    for (const std::string& note : run->notes) print_note("[compare] note: " + note);
  const CountComparison c = compare_counts(base, fresh, wanted, tol, ignore);
  if (!output.file.empty()) write_file_atomically(output.file, count_comparison_markdown(c));
  fmt::print("{}", output.json ? count_comparison_json(c).dump(2) + "\n"
                               : count_comparison_markdown(
                                     c, output.wide ? TableWidth::kWide : TableWidth::kCompact));
  std::fflush(stdout);
  return c.exit_status();
}

}  // namespace moesweep::cli
