#include "sweep/turn_order.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "util/seeded_shuffle.hpp"

namespace moesweep {

std::vector<size_t> turn_order(size_t n_engines, size_t round, uint64_t seed) {
  std::vector<size_t> order(n_engines);
  std::iota(order.begin(), order.end(), size_t{0});
  if (n_engines <= 2) {
    if (round % 2 == 1) std::reverse(order.begin(), order.end());
    return order;
  }
  // Each round its own stream: a round's order does not depend on how many
  // rounds came before it (a resumed sweep replays the same orders).
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(round), static_cast<uint32_t>(round >> 32)};
  std::mt19937_64 rng(seq);
  seeded_shuffle(order, rng);
  return order;
}

}  // namespace moesweep
