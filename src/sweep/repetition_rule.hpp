#pragma once
// When a point has had enough repetitions: the one question the sweep's
// repetition loop (sweep/kv_walk.cpp) asks after each repetition.
//  - -r is the minimum; --max-repetitions the most the targets may take;
//  - --target-ci: until every phase's 95% CI half-width is within it (per point);
//  - --target-mde P: until the cell's minimum detectable effect (MDE,
//    results/power.hpp) is within P% -- what `compare` could then detect,
//    at its defaults (alpha 0.05, geomean+holm: a cell's test at alpha / 2
//    under Holm over every cell and phase compared; 90% power). With
//    several engines (sweep --engine a,b) a cell is the same
//    point on each engine and its MDE is the paired t test's on the pairs of
//    repetitions against the first engine; with one engine, the MDE of a
//    comparison with a baseline of the same spread and count (Mann-Whitney
//    from 4 samples a side, Welch below: compare's unpaired auto).
//  - --max-time S: after S seconds no point takes more than -r; before that
//    each cell may spend a fair share of what is left.
// The engines keep taking turns repetition by repetition (ABBA) whatever is
// decided: a cell's decision is made once, by the first engine to ask, from
// the pairs complete at that moment, and every engine of the cell follows it
// (so a cell may take one repetition more than it needed).
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "results/record.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

class RepetitionRule {
 public:
  using Clock = std::chrono::steady_clock;
  RepetitionRule(const Plan& plan, Clock::time_point start);
  // Another repetition of `point` after `done` of them (their samples in `rec`)?
  bool more(const PlannedPoint& point, const Record& rec, int done);
  // The point's targets met (its record's repetitions.target_met).
  bool met(const PlannedPoint& point, const Record& rec) const;
  // The alpha each cell's MDE is taken at: 0.05 / the tests compare will run.
  double alpha() const { return alpha_; }
  // The MDE (a log ratio) of the cell of `point` with the samples known now;
  // infinity when it has under 2 samples (or pairs) in a phase.
  double cell_mde(const PlannedPoint& point, int done) const;

 private:
  struct Samples {
    std::vector<double> pp, tg;
  };
  bool mde_wants_more(const std::string& cell, const PlannedPoint& point, int done);
  bool out_of_time(const std::string& cell) const;
  const SweepSpec spec_;
  const Clock::time_point start_;
  double alpha_ = 0.05;
  int cells_total_ = 0;
  std::map<std::string, std::map<size_t, Samples>> samples_;  // cell -> engine -> latest samples
  std::map<std::pair<std::string, int>, bool> decided_;       // (cell, done) -> another?
  std::map<std::string, std::pair<Clock::time_point, int>> started_;  // cell -> (when, cells left)
  std::set<std::string> finished_, met_;
};

// The tests `compare` runs on the plan's cells: every point of the first
// engine (the others are its partners), once per phase it measures.
int compared_tests(const Plan& plan);
// The alpha each of those cells' tests faces under compare's default family
// (results/compare.hpp: alpha / 2 / tests under geomean+holm): what a cell's
// MDE is taken at.
double compared_cell_alpha(const Plan& plan);

// A cell: the point's key without the engine (sweep --engine's points of one cell).
std::string cell_key(const PointParams& params);

// The rule without --target-mde and --max-time: whether a point needs another
// repetition after `done`: always below -r; with --target-ci until every
// measured phase's 95% CI half-width of the mean speed is within the target
// (at least 2 samples), up to --max-repetitions.
bool needs_another_repetition(const SweepSpec& spec, const Record& rec, int done);
// Every measured phase's 95% CI half-width within --target-ci.
bool ci_target_met(const SweepSpec& spec, const Record& rec);

}  // namespace moesweep
