#pragma once
// The order in which a sweep's engines take their turns in one round (one
// repetition of a point each).
//
// Two engines: ABBA (A B, B A, A B, ...): a drift that is linear over a
// round's two steps falls on both alike, and compare pairs the samples.
//
// Three or more (a history, a sweep over several builds): every round in its
// own uniformly random order, seeded. In a fixed or back-and-forth order, a
// load that comes or goes in the middle of a round lands on the engines that
// are neighbours in the list, round after round: measured on a quiet guest,
// one build under 8 names, the speeds of successive steps in a round were
// correlated (lag-1 r +0.11, where independent samples give -0.125), and
// change-point detection, whose permutation test takes the releases of a
// round to be exchangeable, found a step in 2 of 30 such A/A series at
// alpha 0.01. Random orders make that exchangeability true by design: the
// permutation test is then a randomization test, exact at its alpha.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace moesweep {

// The engines' indices (0 .. n-1) in the order they take round `round`'s turns.
std::vector<size_t> turn_order(size_t n_engines, size_t round, uint64_t seed);

}  // namespace moesweep
