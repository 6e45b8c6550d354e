#pragma once
// An LRU cache fed with the expert-weight blocks a routing trace reads: each
// MoE layer of each micro-batch reads every distinct expert it selected once
// (the engine's mul_mat_id walks the experts, not the tokens), a block being
// the bytes of one expert of one layer. Mattson's stack distances (bytes of
// distinct blocks touched since a block's last use, itself included) give the
// hit rate of every cache size in one pass: a read hits a cache of C bytes
// exactly when its stack distance is <= C (exact for equal-sized blocks).
#include <cstdint>
#include <vector>

#include "analysis/routing_trace.hpp"

namespace moesweep {

struct BlockAccess {
  uint32_t block = 0;  // layer * n_expert + expert
  uint64_t bytes = 0;
  TracePhase phase = TracePhase::kPrefill;
  uint16_t layer = 0;
};

// The reads of a trace, in order.
std::vector<BlockAccess> expert_block_accesses(const RoutingTrace& trace);

constexpr uint64_t kColdMiss = UINT64_MAX;  // first use: misses any cache

// Stack distance in bytes of each access (kColdMiss on first use).
std::vector<uint64_t> stack_distances(const std::vector<BlockAccess>& accesses);

struct HitRates {
  double generation = 0, prefill = 0, all = 0;  // byte-weighted, routed-expert reads
};

class LruCurve {
 public:
  LruCurve(const std::vector<BlockAccess>& accesses, const std::vector<uint64_t>& distances);
  // Predicted hit rate of routed-expert bytes in an LRU cache of `cache_bytes`.
  HitRates at(uint64_t cache_bytes) const;
  // The best any cache can do: every read but the first of each block hits.
  HitRates ceiling() const { return at(UINT64_MAX - 1); }

 private:
  struct Phase {
    std::vector<uint64_t> distance;    // sorted
    std::vector<uint64_t> bytes_upto;  // prefix sums of bytes in that order
    uint64_t total = 0;
    double rate(uint64_t cache_bytes) const;
  };
  Phase phase_[2], all_;
};

struct LayerReuse {
  int layer = -1;
  uint64_t reads = 0, cold = 0;
  uint64_t median_bytes = 0, p90_bytes = 0;  // stack distances of the warm reads
};
std::vector<LayerReuse> layer_reuse(const std::vector<BlockAccess>& accesses,
                                    const std::vector<uint64_t>& distances);

// The cache sizes the report tabulates: 8 MiB .. 2 GiB.
std::vector<uint64_t> standard_cache_sizes();

}  // namespace moesweep
