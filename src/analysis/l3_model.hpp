#pragma once
// The cache models side by side for one machine: the read stream of a trace
// (hot set included) split over the L3 domains as ggml's threads read it
// (l3_domains.hpp), then fed to a byte-LRU and to set-associative caches
// with LRU, bimodal-insertion and random replacement (cache_policies.hpp).
// The spread of their hit rates is the band of optimistic to pessimistic
// estimates; the domain split applies to every one of them.
#include <string>
#include <vector>

#include "analysis/cache_policies.hpp"
#include "analysis/l3_domains.hpp"

namespace moesweep {

enum class CacheModel { kByteLru, kSetLru, kBimodal, kRandom };
inline constexpr CacheModel kAllCacheModels[] = {CacheModel::kByteLru, CacheModel::kSetLru,
                                                 CacheModel::kBimodal, CacheModel::kRandom};
std::string model_name(CacheModel m);  // "byte-LRU", "set-assoc LRU", "set-assoc BIP", ...
std::string model_key(CacheModel m);   // "lru", "set_lru", "bip", "random" (JSON, CSV)

struct CacheMachine {
  DomainLayout layout;                 // threads and the L3 domains they use
  std::vector<ExpertMatrix> matrices;  // one expert's matrices and their row schedule
  int ways = 16;
};

struct ModelHits {
  CacheModel model = CacheModel::kByteLru;
  HitRates hits;  // generation phase over every domain (prefill: one shared cache only)
};

struct HitBand {
  std::vector<ModelHits> models;           // kAllCacheModels order
  double optimistic = 0, pessimistic = 0;  // max / min generation hit rate of routed bytes
  const HitRates& of(CacheModel m) const;
};

// Every model on `stream` (model_block_accesses). A machine of one domain
// keeps the whole stream (prefill too); more domains take the decode reads
// split by domain_streams.
HitBand hit_band(const std::vector<BlockAccess>& stream, const CacheMachine& machine);

// One model on `stream` (the same rules as hit_band).
HitRates model_hits(const std::vector<BlockAccess>& stream, const CacheMachine& machine,
                    CacheModel model);

}  // namespace moesweep
