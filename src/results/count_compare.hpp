#pragma once
// The exact gate: `compare --metric instructions,ll_misses,...` compares what
// --counters sim counted per token (records' pp/tg counters), not times.
// Counts of one binary on one input are deterministic under valgrind at one
// thread (two runs of a point agreed in every event, docs/counters.md), so
// the test is a tolerance: new / base - 1 beyond +tolerance is more work per
// token (exit 4), beyond -tolerance less; within it, the same. Two builds of
// the same source differ a little (their code and heap lie at other
// addresses, so other lines share cache sets): each metric's default
// tolerance sits just above the spread measured between identical builds
// (docs/counters.md), 0.01% for work (instructions, data reads and writes),
// 1% for misses (D1, LL, DRAM bytes). A count one
// side lacks (unavailable, or a point only one side has) could not have been
// seen: with nothing beyond the tolerance elsewhere that is inconclusive
// (exit 5), never a pass. (Repetitions of one point are not compared with
// each other: the engine rebuilds its graph after a PP, so the first TG
// repetition legitimately differs from the next.)
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "results/run_source.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

// Just above the spread measured between identical builds (docs/counters.md):
// work counts differed by at most 0.002%, miss counts by at most 0.25%.
inline constexpr double kWorkCountTolerance = 0.0001;
inline constexpr double kMissCountTolerance = 0.01;

// The count metrics --metric takes: name -> the per-token field of --counters sim.
struct CountMetric {
  const char* name;   // instructions, data_reads, data_writes, d1_misses, ll_misses, dram_bytes
  const char* field;  // instructions_per_token, ...
  double tolerance;   // the default: kWorkCountTolerance or kMissCountTolerance
};
const std::vector<CountMetric>& count_metrics();
// True when `text` (a comma list) names count metrics only; UserError when it
// mixes them with pp/tg or names an unknown one next to a count metric.
bool is_count_metric_list(const std::string& text);
std::vector<CountMetric> parse_count_metrics(const std::string& text);
// "0.05" (percent) -> 0.0005; UserError for anything but 0 < x < 100.
// compare --tolerance: one tolerance for every metric instead of the defaults.
double parse_count_tolerance(const std::string& percent_text);

enum class CountVerdict { kMore, kFewer, kSame, kMissing };
const char* count_verdict_name(CountVerdict v);

struct CountCell {
  std::string phase;  // "PP" or "TG"
  std::string metric;
  double base = 0, fresh = 0, ratio = 0;
  double tolerance = 0;
  CountVerdict verdict = CountVerdict::kMissing;
  std::string why;  // for kMissing
};

struct CountPoint {
  std::string key;
  PointParams params;
  std::vector<CountCell> cells;
};

struct CountComparison {
  std::string base_label, new_label, base_cache, new_cache;
  double tolerance = 0;  // --tolerance for every metric; 0: each metric's default
  std::vector<CountPoint> points;
  std::vector<std::string> only_in_base, only_in_new;
  int more = 0, fewer = 0, missing = 0, compared = 0;
  // compare's exit status: 4 more work somewhere; else 5 when a count or a
  // point of one side was not compared; else 0.
  int exit_status() const;
};

// UserError (exit 2): no point in common, no simulated counts on a side, or
// the two sides simulated different caches. tolerance 0: each metric's default.
CountComparison compare_counts(const LoadedRun& base, const LoadedRun& fresh,
                               const std::vector<CountMetric>& metrics, double tolerance,
                               const std::set<std::string>& ignore);
// kWide names each point by its whole key (compare.md); kCompact by the key
// fields that tell the points apart, within a terminal's 120 columns.
std::string count_comparison_markdown(const CountComparison& c,
                                      TableWidth width = TableWidth::kWide);
nlohmann::json count_comparison_json(const CountComparison& c);

}  // namespace moesweep
