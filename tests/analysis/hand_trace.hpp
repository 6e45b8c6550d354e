#pragma once
// Routing traces made by hand, whose LRU hit rates are worked out on paper.
#include <numeric>
#include <random>
#include <vector>

#include "analysis/routing_trace.hpp"

namespace moesweep::test {

// One MoE layer (layer 1 of 2) of 4 experts, 1 used, `expert_mib` MiB each;
// generation steps reading experts `order`, one token each.
inline RoutingTrace one_expert_per_token(const std::vector<int>& order, uint64_t expert_mib = 1) {
  RoutingTrace t;
  t.model.path = "hand-made.gguf";
  t.model.arch = "test";
  t.model.n_layer = 2;
  t.model.n_expert = 4;
  t.model.n_expert_used = 1;
  t.model.expert_bytes = {0, expert_mib << 20};
  t.model.routed_bytes_total = 4 * (expert_mib << 20);
  t.model.hot_bytes = 3 << 20;
  for (int e : order) {
    const int32_t id = e;
    t.add(TracePhase::kGeneration, 1, 1, 1, &id);
  }
  return t;
}

// One MoE layer (layer 0 of 1) of `n` experts of `bytes`, `used` distinct
// experts per generated token chosen uniformly at random (seeded).
inline RoutingTrace random_trace(int n, uint64_t bytes, int tokens, int used, uint64_t seed) {
  RoutingTrace t;
  t.model.n_layer = 1;
  t.model.n_expert = n;
  t.model.n_expert_used = used;
  t.model.expert_bytes = {bytes};
  t.model.routed_bytes_total = bytes * static_cast<uint64_t>(n);
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (int tok = 0; tok < tokens; ++tok) {
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    t.add(TracePhase::kGeneration, 0, 1, used, ids.data());
  }
  return t;
}

}  // namespace moesweep::test
