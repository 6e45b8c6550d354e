#include "analysis/expert_popularity.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

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

// Least squares of log(count) on log(rank) over the experts used at least once.
double zipf_exponent(std::vector<uint64_t> x) {
  std::sort(x.begin(), x.end(), std::greater<>());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (size_t i = 0; i < x.size() && x[i] > 0; ++i, ++n) {
    const double lx = std::log(static_cast<double>(i + 1)),
                 ly = std::log(static_cast<double>(x[i]));
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  const double den = n * sxx - sx * sx;
  return n >= 2 && den > 0 ? -(n * sxy - sx * sy) / den : 0;
}

}  // namespace

Popularity popularity_of(const std::vector<uint64_t>& counts) {
  Popularity p;
  p.counts = counts;
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
  p.zipf_s = zipf_exponent(counts);
  return p;
}

std::vector<Popularity> layer_popularity(const RoutingTrace& trace) {
  std::map<int, std::vector<uint64_t>> counts;
  for (const TraceStep& s : trace.steps) {
    auto& c = counts[s.layer];
    c.resize(static_cast<size_t>(trace.model.n_expert), 0);
    const uint64_t n = static_cast<uint64_t>(s.n_tokens) * s.n_used;
    for (uint64_t i = 0; i < n; ++i) ++c[trace.ids[s.first_id + i]];
  }
  std::vector<Popularity> out;
  for (const auto& [layer, c] : counts) {
    out.push_back(popularity_of(c));
    out.back().layer = layer;
  }
  return out;
}

Popularity overall_popularity(const std::vector<Popularity>& layers) {
  Popularity m;
  if (layers.empty()) return m;
  for (const Popularity& p : layers) {
    m.selections += p.selections;
    m.entropy_bits += p.entropy_bits;
    m.entropy_normalised += p.entropy_normalised;
    m.gini += p.gini;
    m.top10_share += p.top10_share;
    m.zipf_s += p.zipf_s;
  }
  const double n = static_cast<double>(layers.size());
  m.entropy_bits /= n, m.entropy_normalised /= n, m.gini /= n, m.top10_share /= n, m.zipf_s /= n;
  return m;
}

}  // namespace moesweep
