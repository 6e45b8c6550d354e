#include "analysis/expert_popularity.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

#include "analysis/routing_trace.hpp"

namespace moesweep {
namespace {

double gini_of(std::vector<uint64_t> x) {
  std::sort(x.begin(), x.end());
  double weighted = 0, total = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    weighted += static_cast<double>(i + 1) * static_cast<double>(x[i]);
    total += static_cast<double>(x[i]);
  }
  const double n = static_cast<double>(x.size());
  return total > 0 ? 2 * weighted / (n * total) - (n + 1) / n : 0;
}

// Expert indices by falling count (ties: lower id first).
std::vector<size_t> by_popularity(const std::vector<uint64_t>& counts) {
  std::vector<size_t> order(counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return counts[a] > counts[b]; });
  return order;
}

// Spearman's rho of expert id against popularity rank (ids in order = 1).
double id_rank_spearman(const std::vector<size_t>& order) {
  const double n = static_cast<double>(order.size());
  if (n < 2) return 0;
  double d2 = 0;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const double d = static_cast<double>(rank) - static_cast<double>(order[rank]);
    d2 += d * d;
  }
  return 1 - 6 * d2 / (n * (n * n - 1));
}

// The two Zipf fits over the experts below the cap.
void fit_zipf(Popularity& p) {
  const std::vector<size_t> order = by_popularity(p.counts);
  p.rank_id_spearman = id_rank_spearman(order);
  std::vector<uint64_t> kept;
  std::vector<double> rank_seen, rank_id;
  for (size_t r = 0; r < order.size(); ++r) {
    const uint64_t c = p.counts[order[r]];
    if (p.tokens > 0 && static_cast<double>(c) >= kZipfCapShare * static_cast<double>(p.tokens)) {
      ++p.experts_capped;
      continue;
    }
    kept.push_back(c);
    rank_seen.push_back(static_cast<double>(r + 1));
    rank_id.push_back(static_cast<double>(order[r] + 1));
  }
  p.zipf_s = zipf_mle(kept, rank_seen);
  p.zipf_s_by_id = zipf_mle(kept, rank_id);
}

}  // namespace

double zipf_mle(const std::vector<uint64_t>& counts, const std::vector<double>& ranks) {
  double total = 0, weighted_log = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    total += static_cast<double>(counts[i]);
    weighted_log += static_cast<double>(counts[i]) * std::log(ranks[i]);
  }
  if (counts.size() < 2 || total <= 0) return 0;
  // d logL / ds = C E_s[ln r] - sum c ln r; E_s[ln r] falls with s: bisect its root.
  auto slope = [&](double s) {
    double z = 0, zl = 0;
    for (double r : ranks) {
      const double w = std::pow(r, -s);
      z += w, zl += w * std::log(r);
    }
    return total * zl / z - weighted_log;
  };
  double lo = 0, hi = 16;
  if (slope(lo) <= 0) return 0;  // the counts are no steeper than uniform
  if (slope(hi) >= 0) return hi;
  for (int i = 0; i < 100 && hi - lo > 1e-9; ++i) {
    const double mid = (lo + hi) / 2;
    (slope(mid) > 0 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

Popularity popularity_of(const std::vector<uint64_t>& counts, uint64_t tokens) {
  Popularity p;
  p.counts = counts;
  p.tokens = tokens;
  for (uint64_t c : counts) p.selections += c;
  if (p.selections == 0 || counts.empty()) return p;
  for (uint64_t c : counts) {
    if (c == 0) continue;
    const double q = static_cast<double>(c) / static_cast<double>(p.selections);
    p.entropy_bits -= q * std::log2(q);
  }
  p.entropy_normalised =
      counts.size() > 1 ? p.entropy_bits / std::log2(static_cast<double>(counts.size())) : 1.0;
  p.gini = gini_of(counts);
  std::vector<uint64_t> sorted = counts;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const size_t top = std::max<size_t>(1, (sorted.size() + 9) / 10);
  uint64_t top_sum = 0;
  for (size_t i = 0; i < top; ++i) top_sum += sorted[i];
  p.top10_share = static_cast<double>(top_sum) / static_cast<double>(p.selections);
  fit_zipf(p);
  return p;
}

std::vector<Popularity> layer_popularity(const RoutingTrace& trace) {
  std::map<int, std::vector<uint64_t>> counts;
  std::map<int, uint64_t> tokens;
  for (const TraceStep& s : trace.steps) {
    auto& c = counts[s.layer];
    c.resize(static_cast<size_t>(trace.model.n_expert), 0);
    tokens[s.layer] += s.n_tokens;
    const uint64_t n = static_cast<uint64_t>(s.n_tokens) * s.n_used;
    for (uint64_t i = 0; i < n; ++i) ++c[trace.ids[s.first_id + i]];
  }
  std::vector<Popularity> out;
  for (const auto& [layer, c] : counts) {
    out.push_back(popularity_of(c, tokens[layer]));
    out.back().layer = layer;
  }
  return out;
}

Popularity overall_popularity(const std::vector<Popularity>& layers) {
  Popularity m;
  if (layers.empty()) return m;
  for (const Popularity& p : layers) {
    m.selections += p.selections;
    m.tokens += p.tokens;
    m.entropy_bits += p.entropy_bits;
    m.entropy_normalised += p.entropy_normalised;
    m.gini += p.gini;
    m.top10_share += p.top10_share;
    m.zipf_s += p.zipf_s;
    m.zipf_s_by_id += p.zipf_s_by_id;
    m.rank_id_spearman += p.rank_id_spearman;
    m.experts_capped += p.experts_capped;
  }
  const double n = static_cast<double>(layers.size());
  m.entropy_bits /= n, m.entropy_normalised /= n, m.gini /= n, m.top10_share /= n;
  m.zipf_s /= n, m.zipf_s_by_id /= n, m.rank_id_spearman /= n;
  return m;
}

}  // namespace moesweep
