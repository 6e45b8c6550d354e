#pragma once
// The options that decide a comparison (--threshold, --alpha, --metric,
// --test, --family, --tolerance, --allow-environment-change): one list for
// `compare` and `gate`, read into CompareOptions the same way by both.
#include <CLI/CLI.hpp>

#include <string>

#include "results/compare.hpp"

namespace moesweep::cli {

struct CompareChoice {
  std::string threshold = "5";
  double alpha = 0.05;
  std::string metric = "both";
  std::string test = "auto";
  std::string family = family_name(CompareOptions{}.family);
  std::string tolerance;  // count metrics: the exact gate's tolerance in percent
  bool allow_environment_change = false;

  // Whether --metric names counts (the exact gate) rather than pp/tg.
  bool counts() const;
  // Every choice checked (UserError, exit 2) and read; `ignore` is left empty.
  CompareOptions options() const;
};

// "5" or "5%" -> 0.05; UserError naming `flag` for anything but 0 <= x < 100.
double parse_percent(std::string text, const std::string& flag);

// Adds the options to `cmd`; `metric_help` says what --metric defaults to there.
void add_compare_choice(CLI::App& cmd, CompareChoice& c, const std::string& metric_help);

}  // namespace moesweep::cli
