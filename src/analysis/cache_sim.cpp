#include "analysis/cache_sim.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

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

uint64_t hot_block_id(int layer, int n_layer, int n_expert) {
  return static_cast<uint64_t>(n_layer) * static_cast<uint64_t>(n_expert) +
         static_cast<uint64_t>(layer);
}

StreamSizes trace_sizes(const TraceModel& model) {
  return {model.expert_bytes, model.hot_bytes};
}

StreamSizes scaled_sizes(const TraceModel& model, double routed_total, double hot_per_token) {
  StreamSizes s{std::vector<uint64_t>(model.expert_bytes.size(), 0),
                static_cast<uint64_t>(std::max(0.0, hot_per_token))};
  const auto moe_layers = static_cast<double>(std::count_if(
      model.expert_bytes.begin(), model.expert_bytes.end(), [](uint64_t b) { return b > 0; }));
  if (moe_layers == 0 || model.n_expert <= 0) return s;
  const double per_expert = routed_total / (moe_layers * model.n_expert);
  for (size_t l = 0; l < s.expert_bytes.size(); ++l)
    if (model.expert_bytes[l] > 0)
      s.expert_bytes[l] = static_cast<uint64_t>(std::max(1.0, std::round(per_expert)));
  return s;
}

namespace {

// The distinct experts of one step (a micro-batch reads each once), sorted.
std::vector<uint16_t> distinct_experts(const RoutingTrace& trace, const TraceStep& s) {
  const uint64_t n = static_cast<uint64_t>(s.n_tokens) * s.n_used;
  std::vector<uint16_t> d(trace.ids.begin() + static_cast<int64_t>(s.first_id),
                          trace.ids.begin() + static_cast<int64_t>(s.first_id + n));
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  return d;
}

std::vector<BlockAccess> block_accesses(const RoutingTrace& trace, const StreamSizes& sizes,
                                        bool with_hot) {
  std::vector<BlockAccess> out;
  const auto n_expert = static_cast<uint64_t>(trace.model.n_expert);
  const auto moe_layers = std::count_if(sizes.expert_bytes.begin(), sizes.expert_bytes.end(),
                                        [](uint64_t b) { return b > 0; });
  const uint64_t hot_per_layer = moe_layers > 0 ? sizes.hot_bytes / moe_layers : 0;
  for (uint64_t i = 0; i < trace.steps.size(); ++i) {
    const TraceStep& s = trace.steps[i];
    const uint64_t bytes = s.layer < sizes.expert_bytes.size() ? sizes.expert_bytes[s.layer] : 0;
    if (with_hot && hot_per_layer > 0)
      out.push_back({hot_block_id(s.layer, trace.model.n_layer, trace.model.n_expert),
                     hot_per_layer, s.phase, s.layer, true, i});
    for (uint16_t e : distinct_experts(trace, s))
      out.push_back({s.layer * n_expert + e, bytes, s.phase, s.layer, false, i});
  }
  return out;
}

}  // namespace

std::vector<BlockAccess> expert_block_accesses(const RoutingTrace& trace) {
  return block_accesses(trace, trace_sizes(trace.model), false);
}

std::vector<BlockAccess> model_block_accesses(const RoutingTrace& trace, const StreamSizes& sizes) {
  return block_accesses(trace, sizes, true);
}

std::vector<uint64_t> stack_distances(const std::vector<BlockAccess>& accesses) {
  std::vector<uint64_t> out(accesses.size(), kColdMiss);
  Fenwick live(accesses.size());
  std::unordered_map<uint64_t, size_t> last;  // block -> position of its latest read
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
  std::vector<std::pair<uint64_t, uint64_t>> by_phase[2], all, hot[2];
  for (size_t i = 0; i < accesses.size(); ++i) {
    const int phase = static_cast<int>(accesses[i].phase);
    if (accesses[i].hot) {
      hot[phase].push_back({distances[i], accesses[i].bytes});
      continue;
    }
    by_phase[phase].push_back({distances[i], accesses[i].bytes});
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
  fill(hot_[0], hot[0]);
  fill(hot_[1], hot[1]);
}

double LruCurve::Phase::rate(uint64_t cache_bytes) const {
  const auto end = std::upper_bound(distance.begin(), distance.end(), cache_bytes);
  if (end == distance.begin() || total == 0) return 0;
  return static_cast<double>(bytes_upto[static_cast<size_t>(end - distance.begin()) - 1]) /
         static_cast<double>(total);
}

HitRates LruCurve::at(uint64_t cache_bytes) const {
  constexpr int gen = static_cast<int>(TracePhase::kGeneration),
                pre = static_cast<int>(TracePhase::kPrefill);
  return {phase_[gen].rate(cache_bytes), phase_[pre].rate(cache_bytes), all_.rate(cache_bytes),
          hot_[gen].rate(cache_bytes), hot_[pre].rate(cache_bytes)};
}

void HitBytes::add(const BlockAccess& a, double hit_bytes) {
  const int p = static_cast<int>(a.phase);
  (a.hot ? hot_hit : routed_hit)[p] += hit_bytes;
  (a.hot ? hot_total : routed_total)[p] += static_cast<double>(a.bytes);
}

HitBytes& HitBytes::operator+=(const HitBytes& o) {
  for (int p = 0; p < 2; ++p) {
    routed_hit[p] += o.routed_hit[p], routed_total[p] += o.routed_total[p];
    hot_hit[p] += o.hot_hit[p], hot_total[p] += o.hot_total[p];
  }
  return *this;
}

HitRates HitBytes::rates() const {
  auto rate = [](double hit, double total) { return total > 0 ? hit / total : 0.0; };
  constexpr int gen = static_cast<int>(TracePhase::kGeneration),
                pre = static_cast<int>(TracePhase::kPrefill);
  return {rate(routed_hit[gen], routed_total[gen]), rate(routed_hit[pre], routed_total[pre]),
          rate(routed_hit[gen] + routed_hit[pre], routed_total[gen] + routed_total[pre]),
          rate(hot_hit[gen], hot_total[gen]), rate(hot_hit[pre], hot_total[pre])};
}

HitBytes lru_hit_bytes(const std::vector<BlockAccess>& stream, uint64_t cache_bytes) {
  const std::vector<uint64_t> d = stack_distances(stream);
  HitBytes h;
  for (size_t i = 0; i < stream.size(); ++i)
    h.add(stream[i], d[i] <= cache_bytes ? static_cast<double>(stream[i].bytes) : 0.0);
  return h;
}

std::vector<LayerReuse> layer_reuse(const std::vector<BlockAccess>& accesses,
                                    const std::vector<uint64_t>& distances) {
  std::map<int, std::vector<uint64_t>> warm;
  std::map<int, LayerReuse> by_layer;
  for (size_t i = 0; i < accesses.size(); ++i) {
    if (accesses[i].hot) continue;
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
