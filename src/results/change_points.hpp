#pragma once
// Change points over a history of releases (moesweep history, issue 45):
// where a metric stepped from one release to the next. Pure: values in,
// change points out, no I/O.
//
// Exact counts (--counters sim, one value per release; two runs of one build
// agree to 1e-8): every step between neighbouring releases beyond a stated
// tolerance (default 0.5%) and beyond the identical-build spread is a change
// point. Its interval is the step widened
// by the spread two builds of the same source show (count_compare.hpp's
// default tolerance of that count): the count is exact, the build is not.
//
// Wall time (several samples per release): E-divisive with means (Matteson
// and James 2014, "A Nonparametric Approach for Multiple Change Point
// Analysis of Multivariate Data"), the method Apache Otava is built on:
// hierarchical splits at the pair of neighbouring segments whose energy
// distance statistic is largest, each split kept only when a permutation
// test gives p <= alpha. Why it, here: it assumes no distribution (speed
// samples are skewed by a noisy neighbour's slow repetitions), finds several
// changes without being told how many, and its permutation test states the
// false-alarm rate exactly: under no change, the first split is a false alarm
// with probability alpha per series. Two adaptations, both for this data:
//  - candidates lie between releases only (the samples of one release are
//    one build: a change cannot fall inside it), on the logs of the speeds
//    (a step is a ratio);
//  - the permutation shuffles each repetition's samples among the releases
//    of the segment (blocked), not all samples: a history interleaves its
//    engines repetition by repetition, so repetition k of every release ran
//    side by side, and what the machine did then is shared by them all.
//    Otava's tester shuffles within each segment; blocking keeps that and
//    respects the pairing (a plain shuffle is used where releases have
//    different sample counts).
// The blocked permutation is exact where the releases took each round's
// turns in a random order (sweep/turn_order.hpp: a randomization test); a
// minimum step (min_step) keeps out what differs between two worker
// processes of one build, which no permutation of turns can see.
// The step of a change point is the ratio of the geometric means of the
// segments on either side (between its neighbouring change points), with a
// Welch 95% interval on the log scale; deterministic (a fixed seed).
#include <cstdint>
#include <string>
#include <vector>

namespace moesweep {

struct SeriesPoint {
  std::string label;            // the release, as the axis names it
  std::vector<double> samples;  // wall time: per repetition (> 0); counts: one value
};

struct ChangePoint {
  size_t index = 0;                        // the first release after the change (1 .. n-1)
  std::string before, after;               // the releases around it
  double mean_before = 0, mean_after = 0;  // geometric means (wall) or the two values (counts)
  double step = 0;                         // after / before - 1
  double step_lo = 0, step_hi = 0;         // its 95% interval (counts: the build-to-build spread)
  double p_value = 0;                      // the permutation test's (wall); 0 for counts
};

struct CountStepOptions {
  double tolerance = 0.005;  // a step beyond it is a change point
  double build_spread = 0;   // relative spread of identical builds (the interval's width)
};
// UserError (exit 2) for a point without exactly one positive finite value.
std::vector<ChangePoint> count_change_points(const std::vector<SeriesPoint>& series,
                                             const CountStepOptions& options);

struct EDivisiveOptions {
  double alpha = 0.01;     // per series: the first split's false-alarm rate
  int permutations = 999;  // p resolves to 1 / (permutations + 1)
  uint64_t seed = 20261206;
  // A change point's step at least this (after / before - 1, either way): the
  // permutation test's alpha holds for turns that are exchangeable, but every
  // release is one worker process for the whole history, and two processes of
  // one build differ by a little for as long as they live (memory layout,
  // huge pages): measured up to 2.9% in S_PP on a quiet 2-vCPU guest, a
  // difference no permutation of turns can tell from a change. 0 = none.
  double min_step = 0.03;
};
// Points with fewer than 2 samples are not testable: UserError when any has
// fewer, or a sample is not positive and finite. Fewer than 2 points: none.
// Splits whose step is under min_step are merged back, smallest first, and
// the steps around them measured again.
std::vector<ChangePoint> wall_change_points(const std::vector<SeriesPoint>& series,
                                            const EDivisiveOptions& options);

// "3.21.1 -> 3.22.1: +1.20% [+1.19%, +1.21%]" (and p for wall time).
std::string change_point_text(const ChangePoint& c);

}  // namespace moesweep
