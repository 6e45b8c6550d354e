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
// Verdict per metric: a regression is real when the test's p < alpha (after
// the family's control over all the cells tested: results/compare_family.cpp)
// AND the ratio's 95% CI reaches `threshold` below 1. Both are needed: the
// test says "not noise", the threshold says "big enough to care". A cell that
// is not significant says what it could have seen: its minimum detectable
// effect (MDE, results/power.hpp) at 90% power. Within the threshold it is
// noise (it would have seen a change of that size), beyond it inconclusive.
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "results/machine_class.hpp"
#include "results/power.hpp"
#include "results/record.hpp"
#include "results/run_source.hpp"
#include "results/significance.hpp"

namespace moesweep {

enum class Metric { kPp, kTg };
enum class Verdict {
  kRegression,    // significant and slower by >= threshold
  kImprovement,   // significant and faster by >= threshold
  kSmall,         // significant, but the change is under the threshold
  kNoise,         // not significant, and the MDE is within the threshold
  kInconclusive,  // not significant, and the MDE is beyond the threshold: unable to tell
  kUntestable,    // fewer than 2 samples on a side (e.g. a published table)
};
const char* verdict_name(Verdict v);

// How a gate over several cells keeps its false alarms at alpha (compare_family.cpp).
enum class Family {
  kHolm,     // Holm's step-down over every cell and metric tested: a regression in any one cell
  kGeomean,  // one test per metric on the geometric mean ratio across the cells
  // Both, alpha split in halves (the default): the geometric means decide
  // whether the gate could see the threshold (their MDE is a fraction of a
  // lone cell's), Holm over the cells still catches a change confined to one.
  // Chosen by measurement (docs/engines.md, "The gate's error rates"): on
  // identical builds Holm alone was inconclusive 15 times in 20 (some cell's
  // MDE stayed above 5% within 240 s) where the geometric mean passed.
  kGeomeanHolm,
  kNone,  // every cell at alpha on its own (k cells: up to k x alpha false alarms)
};
Family parse_family(
    const std::string& name);  // holm|geomean|geomean+holm|none; UserError otherwise
const char* family_name(Family f);

struct CompareOptions {
  double threshold = 0.05;  // minimum relative effect, 0.05 = 5%
  double alpha = 0.05;
  std::vector<Metric> metrics = {Metric::kPp, Metric::kTg};
  TestKind test = TestKind::kAuto;
  Family family = Family::kGeomeanHolm;
  std::set<std::string> ignore;  // key fields blanked before joining
  // Runs of different machine classes are refused (see machine_class.hpp)
  // unless this is set; then they are compared and the report says so first.
  bool allow_environment_change = false;
};

// The alpha a cell's own test faces under `o.family` when `tests` cells are
// tested (what auto's choice of test must be able to reach).
double cell_alpha_of(const CompareOptions& o, int tests);

// "S_PP" or "S_TG": the metric as tables name it.
const char* metric_label(Metric m);
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
  // new / base (speeds: < 1 is slower): the ratio of the means, or for pairs
  // the geometric mean of the pairs' ratios.
  double ratio = 0;
  // Its 95% confidence interval: unpaired, the delta method on the log of the
  // ratio of the means with Welch-Satterthwaite degrees of freedom; paired,
  // the t interval of the mean log ratio. 0 when untestable.
  double ratio_lo = 0, ratio_hi = 0;
  TestKind test = TestKind::kAuto;  // the test actually used
  bool paired = false;              // ... on the pairs of one run's engines
  TestResult result;
  CellSpread spread;  // standard error of the log ratio, for the MDE and the aggregate
  // p after the family's control (Holm's adjusted p; the test's p otherwise).
  double p_family = 1;
  double alpha = 0.05;  // the alpha the MDE is at (Holm: alpha / tests)
  double mde = std::numeric_limits<double>::infinity();  // log ratio; infinity: untestable
  Verdict verdict = Verdict::kUntestable;
};

// --family geomean, or the line every gate prints: the geometric mean of the
// cells' ratios of one metric, its 95% CI, test and MDE.
struct Aggregate {
  Metric metric = Metric::kTg;
  int cells = 0;  // testable cells averaged
  double ratio = 0, ratio_lo = 0, ratio_hi = 0;
  TestResult result;  // t test of the mean log ratio
  double alpha = 0.05, mde = std::numeric_limits<double>::infinity();
  Verdict verdict = Verdict::kUntestable;
};

// What the whole gate could detect and decided: compare's exit status.
enum class GateOutcome { kPass, kRegression, kInconclusive };
struct GateSummary {
  GateOutcome outcome = GateOutcome::kInconclusive;
  int tests = 0;                  // cells x metrics tested
  int untestable = 0;             // cells x metrics with under 2 samples a side
  int above = 0;                  // tested ones whose MDE is beyond the threshold (inconclusive)
  double mde_lo = 0, mde_hi = 0;  // range of the MDEs that decide (log ratios)
  std::string line;               // "no regression of 5% or more in any cell (MDE 3.1-4.6%; ...)"
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
  // Engine key fields (engine, engine_opts) left out of the join because each
  // side holds one value of them: two single-engine runs compare as they are.
  std::vector<std::string> engine_fields_joined;
  std::string base_engine_name, new_engine_name;  // the one engine of each side, then
  // Both sides are engines of one run that took turns repetition by
  // repetition: repetition i of each was measured side by side (pairs).
  bool paired = false;
  int regressions = 0, improvements = 0;  // cells (under geomean: shown, not gated)
  std::vector<Aggregate> aggregates;      // one per metric tested
  GateSummary gate;
};

// One cell's metric: its test, ratio, CI and spread, and a verdict at
// options.alpha alone (compare_runs then applies the family's control).
// `pairs`: the samples are pairs (one run's engines, ABBA turns);
// `cell_alpha`: what the cell's test must reach after the family's control
// (auto takes no rank test that cannot); 0 = options.alpha.
MetricComparison compare_metric(Metric metric, const PhaseResult& base, const PhaseResult& fresh,
                                const CompareOptions& options, bool pairs = false,
                                double cell_alpha = 0);
// The verdict of a tested cell from m.p_family at `alpha`, its MDE at
// m.alpha and the threshold (compare_cell.cpp).
void set_verdict(MetricComparison& m, double alpha, double threshold);
// Holm or none over the cells, the aggregates, and the gate (compare_family.cpp).
void apply_family(Comparison& c);
// c.gate from the verdicts and MDEs (compare_gate.cpp).
void set_gate_summary(Comparison& c);
// An MDE (log ratio) as the slowdown it means: "3.1%", "19%"; "none" for infinity.
std::string mde_percent(double log_effect);
Comparison compare_runs(const LoadedRun& base, const LoadedRun& fresh,
                        const CompareOptions& options);
// Throws UserError (exit 2) when the two sides differ in machine class and
// the options do not allow it.
void check_same_machine_class(const Comparison& c);

}  // namespace moesweep
