#pragma once
// Seeded random orders that are the same on every standard library:
// std::shuffle and uniform_int_distribution leave their algorithms to each
// library, so a seed recorded on one machine would not replay on another.
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace moesweep {

// A uniform index below `k` (k > 0), by rejection.
inline size_t uniform_below(std::mt19937_64& rng, size_t k) {
  const uint64_t limit = rng.max() - rng.max() % k;
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return static_cast<size_t>(x % k);
}

// Fisher-Yates over any sequence of swappable items.
template <typename T>
void seeded_shuffle(std::vector<T>& items, std::mt19937_64& rng) {
  using std::swap;
  for (size_t i = items.size(); i > 1; --i) swap(items[i - 1], items[uniform_below(rng, i)]);
}

}  // namespace moesweep
