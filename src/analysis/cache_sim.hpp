#pragma once
// An LRU cache fed with the expert-weight blocks a routing trace reads: each
// MoE layer of each micro-batch reads every distinct expert it selected once
// (the engine's mul_mat_id walks the experts, not the tokens), a block being
// the bytes of one expert of one layer. Mattson's stack distances (bytes of
// distinct blocks touched since a block's last use, itself included) give the
// hit rate of every cache size in one pass: a read hits a cache of C bytes
// exactly when its stack distance is <= C (exact for equal-sized blocks).
//
// The hot set (attention, router, shared experts, norms, dense layers, lm
// head: read by every token) is part of the same stream, one block per MoE
// layer read just before that layer's experts, so its reuse distance is a
// whole token's footprint, as the hardware sees it: when hot <= L3 < hot +
// one token's routed bytes, LRU evicts it every token.
#include <cstdint>
#include <vector>

#include "analysis/routing_trace.hpp"

namespace moesweep {

struct BlockAccess {
  uint64_t block = 0;  // layer * n_expert + expert (hot: hot_block_id(layer, n_layer, n_expert))
  uint64_t bytes = 0;
  TracePhase phase = TracePhase::kPrefill;
  uint16_t layer = 0;
  bool hot = false;   // a hot-set block, not a routed expert
  uint64_t step = 0;  // the index of the trace step that read it
};

// The id of layer `layer`'s share of the hot set: after every expert block.
uint64_t hot_block_id(int layer, int n_layer, int n_expert);

// The routed-expert reads of a trace, in order (no hot set).
std::vector<BlockAccess> expert_block_accesses(const RoutingTrace& trace);

// Byte sizes to give a trace's blocks: the trace's own, or a bigger model's
// (predict: the trace's layers then stand for the model's, pool for pool).
struct StreamSizes {
  std::vector<uint64_t> expert_bytes;  // per layer, as TraceModel::expert_bytes
  uint64_t hot_bytes = 0;              // per token, spread evenly over the MoE layers
};
StreamSizes trace_sizes(const TraceModel& model);
// The sizes that make a trace stand for a model with `routed_total` bytes of
// routed experts and `hot_per_token` hot bytes: each of the trace's MoE layers
// gets routed_total / (MoE layers x n_expert) per expert.
StreamSizes scaled_sizes(const TraceModel& model, double routed_total, double hot_per_token);
// Every read of a trace, hot set included, in order.
std::vector<BlockAccess> model_block_accesses(const RoutingTrace& trace, const StreamSizes& sizes);

constexpr uint64_t kColdMiss = UINT64_MAX;  // first use: misses any cache

// Stack distance in bytes of each access (kColdMiss on first use).
std::vector<uint64_t> stack_distances(const std::vector<BlockAccess>& accesses);

struct HitRates {
  double generation = 0, prefill = 0, all = 0;  // byte-weighted, routed-expert reads
  double hot_generation = 0, hot_prefill = 0;   // byte-weighted, hot-set reads (0: none)
};

class LruCurve {
 public:
  LruCurve(const std::vector<BlockAccess>& accesses, const std::vector<uint64_t>& distances);
  // Hit rates of routed-expert (and hot-set) bytes in an LRU cache of
  // `cache_bytes`: exact at that size, nothing interpolated.
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
  Phase phase_[2], all_, hot_[2];
};

// Hit and total bytes by kind and phase, to add caches up (one per L3
// domain) before taking rates.
struct HitBytes {
  double routed_hit[2] = {0, 0}, routed_total[2] = {0, 0};  // [TracePhase]
  double hot_hit[2] = {0, 0}, hot_total[2] = {0, 0};
  void add(const BlockAccess& a, double hit_bytes);
  HitBytes& operator+=(const HitBytes& o);
  HitRates rates() const;
};
// A byte-LRU cache of `cache_bytes` fed with `stream` (stack distances).
HitBytes lru_hit_bytes(const std::vector<BlockAccess>& stream, uint64_t cache_bytes);

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
