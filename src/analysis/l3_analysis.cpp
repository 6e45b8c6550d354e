#include "analysis/l3_analysis.hpp"

#include <fmt/format.h>

#include <cmath>

namespace moesweep {
namespace {

nlohmann::json hits_json(const HitRates& h) {
  return {{"generation", h.generation}, {"prefill", h.prefill}, {"all", h.all}};
}

double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1 << 20);
}

}  // namespace

L3Analysis analyse_trace(const RoutingTrace& trace, const std::vector<CacheTarget>& targets) {
  L3Analysis a;
  a.model = trace.model;
  a.tokens_prefill = trace.tokens(TracePhase::kPrefill);
  a.tokens_generation = trace.tokens(TracePhase::kGeneration);
  a.layers = layer_popularity(trace);
  a.mean = overall_popularity(a.layers);
  const std::vector<BlockAccess> reads = expert_block_accesses(trace);
  const std::vector<uint64_t> dist = stack_distances(reads);
  a.reuse = layer_reuse(reads, dist);
  const LruCurve lru(reads, dist);
  for (uint64_t c : standard_cache_sizes()) a.curve.push_back({c, lru.at(c)});
  for (int i = 0; i <= 48; ++i) {  // 1 MiB .. 4 GiB, 4 points per doubling
    const auto c =
        static_cast<uint64_t>(std::ldexp(1.0, 20 + i / 4) * std::pow(2.0, (i % 4) / 4.0));
    a.fine.push_back({c, lru.at(c)});
  }
  a.ceiling = lru.ceiling();
  for (const CacheTarget& t : targets) {
    TargetPrediction p;
    p.target = t;
    p.hot_fits = trace.model.hot_bytes <= t.l3_bytes;
    p.expert_cache_bytes = p.hot_fits ? t.l3_bytes - trace.model.hot_bytes : 0;
    p.alone = lru.at(t.l3_bytes);
    p.with_hot = lru.at(p.expert_cache_bytes);
    a.targets.push_back(p);
  }
  return a;
}

nlohmann::json to_json(const L3Analysis& a) {
  nlohmann::json j;
  j["model"] = to_json(a.model);
  j["tokens"] = {{"prefill", a.tokens_prefill}, {"generation", a.tokens_generation}};
  j["bytes"] = {{"hot_per_token", a.model.hot_bytes},
                {"routed_per_token", a.model.routed_bytes_per_token()},
                {"routed_total", a.model.routed_bytes_total}};
  auto pop = [](const Popularity& p) {
    return nlohmann::json{{"layer", p.layer},
                          {"selections", p.selections},
                          {"entropy_bits", p.entropy_bits},
                          {"entropy_normalised", p.entropy_normalised},
                          {"gini", p.gini},
                          {"top10_share", p.top10_share},
                          {"zipf_s", p.zipf_s}};
  };
  j["popularity_mean"] = pop(a.mean);
  for (const Popularity& p : a.layers) j["popularity"].push_back(pop(p));
  for (const LayerReuse& r : a.reuse)
    j["reuse"].push_back({{"layer", r.layer},
                          {"reads", r.reads},
                          {"cold", r.cold},
                          {"median_distance_bytes", r.median_bytes},
                          {"p90_distance_bytes", r.p90_bytes}});
  for (const CurvePoint& c : a.curve)
    j["curve"].push_back({{"cache_bytes", c.cache_bytes}, {"hit", hits_json(c.hit)}});
  j["ceiling"] = hits_json(a.ceiling);
  for (const TargetPrediction& t : a.targets)
    j["targets"].push_back({{"name", t.target.name},
                            {"l3_bytes", t.target.l3_bytes},
                            {"hot_fits", t.hot_fits},
                            {"expert_cache_bytes", t.expert_cache_bytes},
                            {"hit_experts_alone", hits_json(t.alone)},
                            {"hit_with_hot_set", hits_json(t.with_hot)}});
  return j;
}

std::string curve_csv(const L3Analysis& a) {
  std::string out = "cache_bytes,cache_mib,hit_generation,hit_prefill,hit_all\n";
  for (const CurvePoint& c : a.curve)
    out += fmt::format("{},{:.0f},{:.6f},{:.6f},{:.6f}\n", c.cache_bytes, mib(c.cache_bytes),
                       c.hit.generation, c.hit.prefill, c.hit.all);
  return out;
}

nlohmann::json l3_plot_data(const L3Analysis& a, const std::string& title) {
  nlohmann::json series = nlohmann::json::array();
  auto add = [&](const std::string& label, double HitRates::*field, uint64_t tokens) {
    if (tokens == 0) return;
    nlohmann::json s{{"label", label}};
    for (const CurvePoint& c : a.fine) {
      s["x"].push_back(mib(c.cache_bytes));
      s["y"].push_back(c.hit.*field);
    }
    series.push_back(s);
  };
  add(fmt::format("generation ({} tokens)", a.tokens_generation), &HitRates::generation,
      a.tokens_generation);
  add(fmt::format("prefill ({} tokens)", a.tokens_prefill), &HitRates::prefill, a.tokens_prefill);
  nlohmann::json lines = nlohmann::json::array();
  for (const TargetPrediction& t : a.targets)
    lines.push_back(
        {{"label", fmt::format("{} L3 {:.0f} MiB", t.target.name, mib(t.target.l3_bytes))},
         {"x", mib(t.target.l3_bytes)}});
  return {{"title", title},
          {"series", series},
          {"lines", lines},
          {"pool_mib", mib(a.model.routed_bytes_total)},
          {"hot_mib", mib(a.model.hot_bytes)}};
}

}  // namespace moesweep
