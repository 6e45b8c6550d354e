#include "compare_options.hpp"

#include <fmt/format.h>

#include <optional>

#include "results/count_compare.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"

namespace moesweep::cli {

double parse_percent(std::string text, const std::string& flag) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  if (const std::optional<double> v = parse_decimal(text); v && *v >= 0 && *v < 100)
    return *v / 100;  // decimal only: 0x10, inf, nan refused
  throw UserError(flag + " '" + text + "' is not a percentage", "a number from 0 to 100, e.g. 5",
                  "pass " + flag + " 5 for 5%");
}

bool CompareChoice::counts() const {
  return is_count_metric_list(metric);
}

CompareOptions CompareChoice::options() const {
  CompareOptions o;
  o.threshold = parse_percent(threshold, "--threshold");
  if (!(alpha > 0 && alpha < 1))
    throw UserError(fmt::format("--alpha {} is outside (0, 1)", alpha), "e.g. 0.05",
                    "pass --alpha 0.05");
  o.alpha = alpha;
  if (!counts()) o.metrics = parse_metrics(metric);
  if (!counts() && !tolerance.empty())
    throw UserError("--tolerance is for count metrics", "--metric instructions,... with it",
                    "use --threshold for times, or give count metrics");
  o.test = parse_test_kind(test);
  o.family = parse_family(family);
  o.allow_environment_change = allow_environment_change;
  return o;
}

void add_compare_choice(CLI::App& cmd, CompareChoice& c, const std::string& metric_help) {
  cmd.add_option("--threshold", c.threshold,
                 "minimum slowdown in percent that counts as a regression")
      ->capture_default_str();
  cmd.add_option("--alpha", c.alpha, "significance level of the two-sided test")
      ->capture_default_str();
  cmd.add_option("--metric", c.metric, metric_help)->capture_default_str();
  cmd.add_option("--tolerance", c.tolerance,
                 "with count metrics: the change in percent a count may show and still be the "
                 "same (default 0.01 for instructions and data reads/writes, 1 for misses)");
  cmd.add_option("--test", c.test,
                 "auto (paired t on the pairs of one run's engines; else Mann-Whitney from 4 "
                 "samples a side, Welch below), welch, mwu, paired-t or signed-rank")
      ->capture_default_str();
  cmd.add_option("--family", c.family,
                 "false-alarm control over the cells: geomean+holm (the geometric mean ratio "
                 "per metric decides what the gate could see, any one cell under Holm fails it "
                 "too; alpha split in halves), holm (any one cell), geomean or none")
      ->capture_default_str();
  cmd.add_flag("--allow-environment-change", c.allow_environment_change,
               "compare runs of different machine classes (CPU, L3, CPU features) instead of "
               "refusing; the report says so at the top");
}

}  // namespace moesweep::cli
