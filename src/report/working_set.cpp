#include "report/working_set.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "results/stats.hpp"

namespace moesweep {
namespace {

const PointRoofline* roofline_of(const Record& r) {
  const std::optional<PointRoofline>& roof = r.extra.roofline;
  return r.ok && roof && roof->routed_expert_bytes_per_layer ? &*roof : nullptr;
}

// The pool: every routed expert of every MoE layer (older records: one layer's).
double pool_of(const PointRoofline& roof) {
  return or_value(roof.routed_expert_bytes_total, or_value(roof.routed_expert_bytes_per_layer, 0));
}

// One curve: the MoE twins of one skew, depth, thread count, quant and expert size.
using CurveKey = std::tuple<double, int, int, std::string, int>;
using DenseKey = std::pair<int, int>;  // depth, threads

struct Grouped {
  std::map<CurveKey, std::map<double, std::vector<const Record*>>> curves;
  std::map<DenseKey, std::vector<double>> dense;
  double l3_nominal = 0, l3_effective = 0;
};

Grouped group(const std::vector<Record>& records) {
  Grouped g;
  for (const Record& r : records) {
    const PointRoofline* roof = roofline_of(r);
    if (!roof) continue;
    g.l3_nominal = or_value(roof->l3_bytes, g.l3_nominal);
    g.l3_effective = or_value(roof->l3_effective_bytes, g.l3_effective);
    const double pool = pool_of(*roof);
    const PointParams& p = r.params;
    if (pool == 0) {
      auto& d = g.dense[{p.n_kv, p.n_threads}];
      d.insert(d.end(), r.tg.tokens_per_s.begin(), r.tg.tokens_per_s.end());
      continue;
    }
    g.curves[{p.routing_skew, p.n_kv, p.n_threads, p.quant, p.expert_ff}][pool].push_back(&r);
  }
  return g;
}

std::string mib(double bytes) {
  return fmt::format("{:.2f} MiB", bytes / (1 << 20));
}

std::string verdict_of(const WorkingSetCurve& c) {
  if (c.memory_bound_share && *c.memory_bound_share < kMemoryBoundShare)
    return fmt::format(
        "compute-bound: reading the experts takes {:.0f}% of a token at the kernel's out-of-cache "
        "speed (< {:.0f}%), so this shape cannot show a cache effect: no verdict",
        100 * *c.memory_bound_share, 100 * kMemoryBoundShare);
  const CliffResult& k = c.cliff;
  if (k.resolved)
    return fmt::format("cliff at {} of pool [{} - {}], {:.0f}% slower past it [{:.0f}% - {:.0f}%]",
                       mib(k.position.value), mib(k.position.lo), mib(k.position.hi),
                       100 * k.drop.value, 100 * k.drop.lo, 100 * k.drop.hi);
  if (!c.memory_bound_share)
    return "no cliff resolved, and no `moesweep hw --cache` figure says whether the shape is "
           "memory-bound: no verdict";
  return fmt::format(
      "no cliff: the drop's 95% interval [{:.0f}% - {:.0f}%] includes 0 or the step "
      "lies at the edge of the span",
      100 * k.drop.lo, 100 * k.drop.hi);
}

WorkingSetCurve curve_of(const CurveKey& key,
                         const std::map<double, std::vector<const Record*>>& pts,
                         const std::vector<double>& dense, int bootstrap) {
  WorkingSetCurve c;
  std::tie(c.skew, c.n_kv, c.threads, c.quant, c.expert_ff) = key;
  c.label = fmt::format("skew s={} N_KV={} t={}", c.skew, c.n_kv, c.threads);
  for (const auto& [pool, recs] : pts) {
    WorkingSetPoint p;
    p.pool_bytes = pool;
    std::vector<double> ys;
    std::set<int> blocks;
    for (const Record* r : recs) {
      ys.insert(ys.end(), r->tg.tokens_per_s.begin(), r->tg.tokens_per_s.end());
      blocks.insert(r->params.block);
      const PointRoofline& roof = *r->extra.roofline;
      c.routed_bytes_per_token = or_value(roof.routed_bytes_per_token, c.routed_bytes_per_token);
      c.hot_bytes_per_token = or_value(roof.hot_bytes_per_token, c.hot_bytes_per_token);
      c.kernel_out_gbps = or_value(roof.kernel_gemv_out_of_cache_gbps, c.kernel_out_gbps);
      c.kernel_in_gbps = or_value(roof.kernel_gemv_in_cache_gbps, c.kernel_in_gbps);
      p.efficiency = or_value(roof.efficiency_tg, p.efficiency);
    }
    for (double y : ys) c.samples.push_back({pool, y});
    const Stats s = Stats::of(ys);
    p.mean = s.mean, p.ci95 = s.ci95, p.samples = s.n, p.blocks = static_cast<int>(blocks.size());
    c.points.push_back(p);
  }
  c.cliff = analyse_cliff(c.samples, dense, bootstrap);
  if (c.kernel_out_gbps > 0 && c.routed_bytes_per_token > 0 && !c.points.empty())
    c.memory_bound_share =
        c.points.back().mean * c.routed_bytes_per_token / (c.kernel_out_gbps * 1e9);
  c.verdict = verdict_of(c);
  return c;
}

}  // namespace

std::optional<WorkingSet> analyse_working_set(const std::vector<Record>& records, int bootstrap) {
  const Grouped g = group(records);
  std::set<double> sizes;
  for (const auto& [key, pts] : g.curves)
    for (const auto& [pool, recs] : pts) sizes.insert(pool);
  if (sizes.size() < 2) return std::nullopt;  // not an expert-count experiment
  WorkingSet ws;
  ws.l3_nominal = g.l3_nominal;
  ws.l3_effective = g.l3_effective;
  for (const auto& [key, ys] : g.dense) {
    const Stats s = Stats::of(ys);
    ws.dense.push_back({key.first, key.second, s.mean, s.ci95, s.n});
  }
  for (const auto& [key, pts] : g.curves) {
    if (pts.size() < 2) continue;
    const auto dense = g.dense.find({std::get<1>(key), std::get<2>(key)});
    ws.curves.push_back(curve_of(
        key, pts, dense == g.dense.end() ? std::vector<double>{} : dense->second, bootstrap));
  }
  return ws;
}

}  // namespace moesweep
