#pragma once
// The requests of an open-loop workload, made on demand: request i of round
// r (the warm-up is round 0, each rate a round of its own) opens with a head
// of kRequestHeadTokens tokens that spells (r, i), so no two requests share
// more than that; a share of them carries the round's shared prefix first
// (its own head makes it new at each round); the body is cut from a seeded
// stretch of text. Lengths depend on the seed and i only, the same at every
// rate. A prompts file's prompts are sent as they are, line i % lines.
#include <cstdint>
#include <vector>

#include "serve/prompt_pool.hpp"
#include "serve/serve_client.hpp"
#include "serve/workload.hpp"

namespace moesweep {

class TrafficPrompts {
 public:
  TrafficPrompts(const Workload& w, const ServeClient& client);
  CompletionRequest request(int round, size_t index) const;
  // The round's shared prefix alone (the prime); an empty prompt when the
  // workload shares none or does not prime it.
  CompletionRequest prime(int round) const;
  bool shares_prefix(size_t index) const;
  // The most prompt tokens request i may find cached without the workload
  // asking for it (its head's luck, a BOS): more is an unexpected reuse.
  static constexpr int kUnexpectedCacheTokens = 16;

 private:
  std::vector<int> head(int round, uint64_t number) const;
  std::vector<int> shared_prefix(int round) const;
  const Workload& w_;
  std::vector<int> pool_, alphabet_;  // alphabet_: 64 distinct ids of the pool
};

}  // namespace moesweep
