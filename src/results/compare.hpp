#pragma once
// The regression gate: join two runs point by point and decide, per point and
// metric, whether the new run is really slower.
//
// Join key: PointParams::key_string() -- every key field of the point in
// point_fields() (results/point_fields.cpp: model name, quant, ..., pp, tg,
// n_kv). The model *path* is not part of it, so the same model in another
// directory joins. Fields named in `ignore` are blanked on both
// sides before joining (e.g. `--ignore model,poll`), or `--on threads` keeps
// only the named fields (to put a run beside a published table whose depth
// and prompt sizes were not published). Points whose keys still differ are
// listed, never joined; points that collapse onto one key are counted.
//
// Verdict per metric: a regression is real when the test's p < alpha AND the
// new mean is at least `threshold` below the base mean. Both are needed: the
// test says "not noise", the threshold says "big enough to care".
#include <set>
#include <string>
#include <vector>

#include "results/machine_class.hpp"
#include "results/record.hpp"
#include "results/run_source.hpp"
#include "results/significance.hpp"

namespace moesweep {

enum class Metric { kPp, kTg };
enum class Verdict {
  kRegression,   // significant and slower by >= threshold
  kImprovement,  // significant and faster by >= threshold
  kSmall,        // significant, but the change is under the threshold
  kNoise,        // not significant
  kUntestable,   // fewer than 2 samples on a side (e.g. a published table)
};
const char* verdict_name(Verdict v);

struct CompareOptions {
  double threshold = 0.05;  // minimum relative effect, 0.05 = 5%
  double alpha = 0.05;
  std::vector<Metric> metrics = {Metric::kPp, Metric::kTg};
  TestKind test = TestKind::kAuto;
  std::set<std::string> ignore;  // key fields blanked before joining
  // Runs of different machine classes are refused (see machine_class.hpp)
  // unless this is set; then they are compared and the report says so first.
  bool allow_environment_change = false;
};

// Parses "pp", "tg" or "both"; and the comma list of --ignore (checked names).
std::vector<Metric> parse_metrics(const std::string& name);
std::set<std::string> parse_ignored_fields(const std::string& list,
                                           const std::string& flag = "--ignore");
const std::vector<std::string>& ignorable_fields();
// `--on threads,n_kv`: join on these fields only, i.e. ignore all others.
std::set<std::string> fields_not_in(const std::set<std::string>& kept);

// The join key of a point under these options.
std::string join_key(const PointParams& params, const std::set<std::string>& ignore);

struct MetricComparison {
  Metric metric = Metric::kTg;
  int n_base = 0, n_new = 0;
  double base_mean = 0, new_mean = 0, base_sd = 0, new_sd = 0;
  double ratio = 0;                 // new / base (speeds: < 1 is slower)
  // 95% confidence interval of the ratio of the means (delta method on its
  // log, Welch-Satterthwaite degrees of freedom); 0 when untestable.
  double ratio_lo = 0, ratio_hi = 0;
  TestKind test = TestKind::kAuto;  // the test actually used
  TestResult result;
  Verdict verdict = Verdict::kUntestable;
};

struct PointComparison {
  std::string key;
  PointParams params;  // the base side's
  std::vector<MetricComparison> metrics;
};

struct Unmatched {
  std::string key;
  std::string closest_other;  // the nearest key on the other side, if any
  std::string differences;    // "model: a -> b; poll: 50 -> 0"
};

struct Comparison {
  std::string base_label, new_label;
  CompareOptions options;
  std::vector<PointComparison> points;  // base order
  std::vector<Unmatched> only_in_base, only_in_new;
  std::vector<std::string> failed_base, failed_new;  // keys of points that failed (ok = false)
  int duplicates = 0;                                // later records that replaced earlier ones
  // meta.json facts that differ ("/engine/commit: a -> b"), volatile ones left
  // out: a CPU or engine change explains a "regression" before anyone digs.
  std::vector<std::string> environment_differences;
  // Machine class of each side (unknown for a run without meta.json) and what
  // differs between them; non-empty means the speeds are not comparable.
  MachineClass base_machine, new_machine;
  std::vector<std::string> machine_differences;
  // The engine builds that measured each side (results/engine_sides.hpp):
  // what a comparison of two engines on one machine class compares.
  std::string base_engine, new_engine;
  int regressions = 0, improvements = 0;
};

MetricComparison compare_metric(Metric metric, const PhaseResult& base, const PhaseResult& fresh,
                                const CompareOptions& options);
Comparison compare_runs(const LoadedRun& base, const LoadedRun& fresh,
                        const CompareOptions& options);
// Throws UserError (exit 2) when the two sides differ in machine class and
// the options do not allow it.
void check_same_machine_class(const Comparison& c);

}  // namespace moesweep
