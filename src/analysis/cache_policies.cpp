#include "analysis/cache_policies.hpp"

#include <algorithm>
#include <random>

namespace moesweep {
namespace {

constexpr uint64_t kLine = 64;
constexpr uint64_t kLinesPerPage = 4096 / kLine;
constexpr double kBimodalMruChance = 1.0 / 32;  // BIP's epsilon (Qureshi et al., ISCA 2007)

// A reproducible hash: the colour of page `page` of block `block`.
uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// The cache and every block shrunk by one factor (`scale`): the same ratios
// of footprint to capacity, the same ways, random page colours, so the same
// hit rates in expectation, with every line of the smaller problem simulated.
class ScaledCache {
 public:
  ScaledCache(const SetAssocCache& c, uint64_t scale) : cache_(c), scale_(scale), rng_(c.seed) {
    const auto ways = static_cast<uint64_t>(std::max(1, c.ways));
    sets_ = std::max<uint64_t>(1, c.bytes / scale / (kLine * ways));
    colours_ = std::max<uint64_t>(1, sets_ / kLinesPerPage);
    tags_.assign(sets_, {});
  }

  // Reads every line of a block (scaled); returns the lines that hit and were read.
  std::pair<uint64_t, uint64_t> read(const BlockAccess& a) {
    uint64_t hits = 0;
    const uint64_t lines = std::max<uint64_t>(1, (a.bytes / scale_ + kLine - 1) / kLine);
    for (uint64_t page = 0; page * kLinesPerPage < lines; ++page) {
      const uint64_t colour = mix(a.block * 0x9e3779b97f4a7c15ULL + page + cache_.seed) % colours_;
      const uint64_t first = page * kLinesPerPage, last = std::min(lines, first + kLinesPerPage);
      for (uint64_t line = first; line < last; ++line) {
        const uint64_t set = (colour * kLinesPerPage + line - first) % sets_;
        hits += touch(tags_[set], (a.block << 24) | line) ? 1 : 0;
      }
    }
    return {hits, lines};
  }

 private:
  // MRU first. True on a hit.
  bool touch(std::vector<uint64_t>& set, uint64_t tag) {
    const auto it = std::find(set.begin(), set.end(), tag);
    if (it != set.end()) {
      if (cache_.policy != ReplacementPolicy::kRandom) std::rotate(set.begin(), it, it + 1);
      return true;
    }
    const auto ways = static_cast<size_t>(std::max(1, cache_.ways));
    if (set.size() < ways) {
      set.insert(set.begin(), tag);
      return false;
    }
    switch (cache_.policy) {
      case ReplacementPolicy::kLru:
        set.pop_back();
        set.insert(set.begin(), tag);
        break;
      case ReplacementPolicy::kBimodal:
        set.back() = tag;  // at the LRU position ...
        if (std::uniform_real_distribution<>(0, 1)(rng_) < kBimodalMruChance)
          std::rotate(set.begin(), set.end() - 1, set.end());  // ... or, rarely, MRU
        break;
      case ReplacementPolicy::kRandom:
        set[rng_() % ways] = tag;
        break;
    }
    return false;
  }

  SetAssocCache cache_;
  uint64_t scale_ = 1;
  std::mt19937_64 rng_;
  uint64_t sets_ = 1, colours_ = 1;
  std::vector<std::vector<uint64_t>> tags_;
};

}  // namespace

std::string policy_name(ReplacementPolicy p) {
  switch (p) {
    case ReplacementPolicy::kLru:
      return "set-associative LRU";
    case ReplacementPolicy::kBimodal:
      return "bimodal insertion (scan-resistant)";
    case ReplacementPolicy::kRandom:
      return "random replacement";
  }
  return "?";
}

namespace {

// The factor that keeps the simulated line reads within budget while the
// scaled cache keeps at least kMinSets sets.
uint64_t scale_for(const std::vector<BlockAccess>& stream, const SetAssocCache& c) {
  constexpr uint64_t kMinSets = 256;
  double lines = 0;
  for (const BlockAccess& a : stream) lines += static_cast<double>(a.bytes) / kLine;
  const uint64_t sets = c.bytes / (kLine * static_cast<uint64_t>(std::max(1, c.ways)));
  uint64_t scale = 1;
  while (lines / static_cast<double>(scale) > static_cast<double>(c.max_line_reads) &&
         sets / (scale * 2) >= kMinSets)
    scale *= 2;
  return scale;
}

}  // namespace

HitBytes simulate_set_assoc(const std::vector<BlockAccess>& stream, const SetAssocCache& cache) {
  const uint64_t scale = scale_for(stream, cache);
  ScaledCache sim(cache, scale);
  HitBytes h;
  uint64_t simulated = 0;
  for (const BlockAccess& a : stream) {
    if (simulated > cache.max_line_reads) break;  // a stream too big even scaled: its start
    const auto [hits, lines] = sim.read(a);
    simulated += lines;
    // a block's bytes, split by the share of its (scaled) lines that hit
    h.add(a, static_cast<double>(a.bytes) * static_cast<double>(hits) / static_cast<double>(lines));
  }
  return h;
}

}  // namespace moesweep
