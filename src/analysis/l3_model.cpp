#include "analysis/l3_model.hpp"

#include <algorithm>

namespace moesweep {
namespace {

// Each model once: its key (JSON, CSV), its name, its replacement policy.
struct ModelRow {
  CacheModel model;
  const char* key;
  const char* name;
  ReplacementPolicy policy;  // unused for byte-LRU
};
constexpr ModelRow kModels[] = {
    {CacheModel::kByteLru, "lru", "byte-LRU", ReplacementPolicy::kLru},
    {CacheModel::kSetLru, "set_lru", "set-assoc LRU", ReplacementPolicy::kLru},
    {CacheModel::kBimodal, "bip", "set-assoc BIP", ReplacementPolicy::kBimodal},
    {CacheModel::kRandom, "random", "set-assoc random", ReplacementPolicy::kRandom},
};

const ModelRow& row_of(CacheModel m) {
  for (const ModelRow& r : kModels)
    if (r.model == m) return r;
  return kModels[0];
}

HitBytes one_cache(const std::vector<BlockAccess>& stream, uint64_t bytes, int ways,
                   CacheModel model) {
  if (model == CacheModel::kByteLru) return lru_hit_bytes(stream, bytes);
  SetAssocCache c;
  c.bytes = bytes;
  c.ways = ways;
  c.policy = row_of(model).policy;
  return simulate_set_assoc(stream, c);
}

}  // namespace

std::string model_name(CacheModel m) {
  return row_of(m).name;
}

std::string model_key(CacheModel m) {
  return row_of(m).key;
}

const HitRates& HitBand::of(CacheModel m) const {
  for (const ModelHits& h : models)
    if (h.model == m) return h.hits;
  static const HitRates none;
  return none;
}

HitRates model_hits(const std::vector<BlockAccess>& stream, const CacheMachine& machine,
                    CacheModel model) {
  const auto& sizes = machine.layout.domain_bytes;
  if (sizes.size() <= 1)
    return one_cache(stream, sizes.empty() ? 0 : sizes[0], machine.ways, model).rates();
  HitBytes sum;
  const auto streams = domain_streams(stream, machine.matrices, machine.layout);
  for (size_t d = 0; d < streams.size(); ++d)
    if (!streams[d].empty()) sum += one_cache(streams[d], sizes[d], machine.ways, model);
  return sum.rates();
}

HitBand hit_band(const std::vector<BlockAccess>& stream, const CacheMachine& machine) {
  HitBand band;
  band.optimistic = 0;
  band.pessimistic = 1;
  for (CacheModel m : kAllCacheModels) {
    band.models.push_back({m, model_hits(stream, machine, m)});
    band.optimistic = std::max(band.optimistic, band.models.back().hits.generation);
    band.pessimistic = std::min(band.pessimistic, band.models.back().hits.generation);
  }
  return band;
}

}  // namespace moesweep
