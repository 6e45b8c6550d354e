#pragma once
// `moesweep compare` on two serve-bench runs: joined per server configuration
// and workload, each metric tested on the per-request samples with the sweep
// compare's test and verdict rules (results/compare.hpp): a regression is
// p < alpha AND at least `threshold` worse.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/compare.hpp"
#include "serve/serve_run_files.hpp"

namespace moesweep {

// A serve-bench run directory: meta.json ("kind": "serve") and requests.jsonl,
// both through their typed readers (serve/serve_run_files.hpp).
struct ServeRun {
  std::string label, dir;
  RunMeta meta;
  ServeFacts facts;                      // meta.json's serve facts
  std::vector<nlohmann::json> requests;  // requests.jsonl lines, checked
  std::vector<std::string> notes;        // a torn last line left out, say
};

// `what` is a run directory whose meta.json says "kind": "serve" (a
// meta.json that does not read is an error, not "no serve run").
bool is_serve_run(const std::string& what);
ServeRun load_serve_run(const std::string& what);  // UserError when unreadable

struct ServeMetricComparison {
  std::string name;  // "TTFT p50 ms", ...
  bool lower_is_better = true;
  int n_base = 0, n_new = 0;
  double base = 0, fresh = 0;  // the statistic on each side
  double ratio = 0;            // as a speed: > 1 better, < 1 worse
  TestKind test = TestKind::kAuto;
  TestResult result;
  Verdict verdict = Verdict::kUntestable;
};

struct ServeGroupComparison {
  std::string config, workload;
  std::vector<ServeMetricComparison> metrics;
};

struct ServeComparison {
  std::string base_label, new_label;
  std::vector<ServeGroupComparison> groups;
  std::vector<std::string> only_in_base, only_in_new;  // "config / workload"
  int regressions = 0, improvements = 0;
};

ServeComparison compare_serve_runs(const ServeRun& base, const ServeRun& fresh,
                                   const CompareOptions& options);
std::string serve_comparison_markdown(const ServeComparison& c, const CompareOptions& options);
nlohmann::json serve_comparison_json(const ServeComparison& c);

// `compare` of two serve-bench run directories (BASE, NEW as typed);
// UserError (exit 2) when one is a serve run and the other a sweep run.
ServeComparison compare_serve_dirs(const std::string& base, const std::string& fresh,
                                   const CompareOptions& options);
// UserError when the runs share no server configuration and workload: called
// once the comparison is printed, whose lists show what each run has.
void check_serve_common_ground(const ServeComparison& c, const std::string& base,
                               const std::string& fresh);

}  // namespace moesweep
