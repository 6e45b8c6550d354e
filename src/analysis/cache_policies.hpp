#pragma once
// The hardware's cache beside the byte-LRU idealisation: 64-byte lines in
// W-way sets, physical pages coloured at random (a 4 KiB page lands on any of
// the cache's page colours), and three replacement policies:
//  - LRU per set: the textbook;
//  - bimodal insertion (BIP): a missed line goes in at the LRU position and
//    only 1 in 32 at MRU, so a stream larger than the cache cannot flush it
//    (the scan resistance of Intel's adaptive insertion and Zen's non-LRU L3);
//  - random replacement.
// Byte-LRU is optimistic next to a cliff (a set-associative cache fills
// unevenly) and pessimistic past it (LRU keeps nothing of a cyclic stream
// larger than the cache; BIP keeps a fixed part). A big model is simulated
// scaled down: the cache and every block divided by one power of two (the
// same footprint-to-capacity ratios, at least 256 sets left), every line of
// that simulated; a stream still too long is cut to its first
// `max_line_reads` line reads.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cache_sim.hpp"

namespace moesweep {

enum class ReplacementPolicy { kLru, kBimodal, kRandom };
std::string policy_name(ReplacementPolicy p);

struct SetAssocCache {
  uint64_t bytes = 0;
  int ways = 16;
  ReplacementPolicy policy = ReplacementPolicy::kLru;
  uint64_t seed = 1;              // page colours, BIP's coin, random victims
  uint64_t max_line_reads = 2e7;  // simulated line reads (see above)
};

// The cache fed with `stream`; hit bytes estimated from the sampled sets.
HitBytes simulate_set_assoc(const std::vector<BlockAccess>& stream, const SetAssocCache& cache);

}  // namespace moesweep
