#include "analysis/cache_sim.hpp"

#include <algorithm>
#include <map>

namespace moesweep {
namespace {

// Sums over positions, to add a block at its newest read and drop it from
// its previous one: the bytes between two reads of a block are a range sum.
class Fenwick {
 public:
  explicit Fenwick(size_t n) : t_(n + 1, 0) {}
  void add(size_t i, int64_t v) {
    for (++i; i < t_.size(); i += i & (~i + 1)) t_[i] += v;
  }
  int64_t prefix(size_t i) const {  // sum of [0, i)
    int64_t s = 0;
    for (; i > 0; i -= i & (~i + 1)) s += t_[i];
    return s;
  }

 private:
  std::vector<int64_t> t_;
};

}  // namespace

std::vector<BlockAccess> expert_block_accesses(const RoutingTrace& trace) {
  std::vector<BlockAccess> out;
  const uint32_t n_expert = static_cast<uint32_t>(trace.model.n_expert);
  std::vector<uint16_t> distinct;
  for (const TraceStep& s : trace.steps) {
    const uint64_t n = static_cast<uint64_t>(s.n_tokens) * s.n_used;
    distinct.assign(trace.ids.begin() + static_cast<int64_t>(s.first_id),
                    trace.ids.begin() + static_cast<int64_t>(s.first_id + n));
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (uint16_t e : distinct)
      out.push_back({s.layer * n_expert + e, trace.model.expert_bytes[s.layer], s.phase, s.layer});
  }
  return out;
}

std::vector<uint64_t> stack_distances(const std::vector<BlockAccess>& accesses) {
  std::vector<uint64_t> out(accesses.size(), kColdMiss);
  Fenwick live(accesses.size());
  std::map<uint32_t, size_t> last;  // block -> position of its latest read
  for (size_t i = 0; i < accesses.size(); ++i) {
    const BlockAccess& a = accesses[i];
    auto it = last.find(a.block);
    if (it != last.end()) {
      // distinct blocks read after the previous read, then this block itself
      out[i] = static_cast<uint64_t>(live.prefix(i) - live.prefix(it->second + 1)) + a.bytes;
      live.add(it->second, -static_cast<int64_t>(a.bytes));
      it->second = i;
    } else {
      last.emplace(a.block, i);
    }
    live.add(i, static_cast<int64_t>(a.bytes));
  }
  return out;
}

LruCurve::LruCurve(const std::vector<BlockAccess>& accesses,
                   const std::vector<uint64_t>& distances) {
  std::vector<std::pair<uint64_t, uint64_t>> by_phase[2], all;
  for (size_t i = 0; i < accesses.size(); ++i) {
    by_phase[static_cast<int>(accesses[i].phase)].push_back({distances[i], accesses[i].bytes});
    all.push_back({distances[i], accesses[i].bytes});
  }
  auto fill = [](Phase& p, std::vector<std::pair<uint64_t, uint64_t>>& v) {
    std::sort(v.begin(), v.end());
    for (const auto& [d, b] : v) {
      p.total += b;
      p.distance.push_back(d);
      p.bytes_upto.push_back(p.total);
    }
  };
  fill(phase_[0], by_phase[0]);
  fill(phase_[1], by_phase[1]);
  fill(all_, all);
}

double LruCurve::Phase::rate(uint64_t cache_bytes) const {
  const auto end = std::upper_bound(distance.begin(), distance.end(), cache_bytes);
  if (end == distance.begin() || total == 0) return 0;
  return static_cast<double>(bytes_upto[static_cast<size_t>(end - distance.begin()) - 1]) /
         static_cast<double>(total);
}

HitRates LruCurve::at(uint64_t cache_bytes) const {
  return {phase_[static_cast<int>(TracePhase::kGeneration)].rate(cache_bytes),
          phase_[static_cast<int>(TracePhase::kPrefill)].rate(cache_bytes), all_.rate(cache_bytes)};
}

std::vector<LayerReuse> layer_reuse(const std::vector<BlockAccess>& accesses,
                                    const std::vector<uint64_t>& distances) {
  std::map<int, std::vector<uint64_t>> warm;
  std::map<int, LayerReuse> by_layer;
  for (size_t i = 0; i < accesses.size(); ++i) {
    LayerReuse& r = by_layer[accesses[i].layer];
    r.layer = accesses[i].layer;
    ++r.reads;
    if (distances[i] == kColdMiss)
      ++r.cold;
    else
      warm[r.layer].push_back(distances[i]);
  }
  std::vector<LayerReuse> out;
  for (auto& [layer, r] : by_layer) {
    auto& d = warm[layer];
    std::sort(d.begin(), d.end());
    if (!d.empty()) {
      r.median_bytes = d[(d.size() - 1) / 2];
      r.p90_bytes = d[(d.size() - 1) * 9 / 10];
    }
    out.push_back(r);
  }
  return out;
}

std::vector<uint64_t> standard_cache_sizes() {
  std::vector<uint64_t> out;
  for (uint64_t mib : {8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048})
    out.push_back(mib << 20);
  return out;
}

}  // namespace moesweep
