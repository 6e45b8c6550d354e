#pragma once
// `moesweep l3`'s results from one routing trace: popularity per layer, reuse
// distances, the LRU hit-rate curve over cache sizes, and the predicted hit
// rate for named L3 sizes (this machine, hardware profiles), with the hot set
// kept resident first when it fits. Plain values; the CLI prints them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/cache_sim.hpp"
#include "analysis/expert_popularity.hpp"
#include "analysis/routing_trace.hpp"

namespace moesweep {

struct CacheTarget {
  std::string name;  // "this machine", "epyc-9175f"
  uint64_t l3_bytes = 0;
};

struct TargetPrediction {
  CacheTarget target;
  bool hot_fits = false;
  uint64_t expert_cache_bytes = 0;  // L3 left for experts once the hot set is in
  HitRates alone;                   // experts alone in the whole L3
  HitRates with_hot;                // experts in what the hot set leaves
};

struct CurvePoint {
  uint64_t cache_bytes = 0;
  HitRates hit;
};

struct L3Analysis {
  TraceModel model;
  uint64_t tokens_prefill = 0, tokens_generation = 0;
  std::vector<Popularity> layers;
  Popularity mean;
  std::vector<LayerReuse> reuse;
  std::vector<CurvePoint> curve;  // standard_cache_sizes()
  std::vector<CurvePoint> fine;   // log-spaced, for the plot
  HitRates ceiling;               // infinite cache (cold misses only)
  std::vector<TargetPrediction> targets;
};

L3Analysis analyse_trace(const RoutingTrace& trace, const std::vector<CacheTarget>& targets);
nlohmann::json to_json(const L3Analysis& a);
// cache_bytes,cache_mib,hit_generation,hit_prefill,hit_all (one row per standard size)
std::string curve_csv(const L3Analysis& a);
// What scripts/plot draws as l3_hit_rate.png (key "l3_curve").
nlohmann::json l3_plot_data(const L3Analysis& a, const std::string& title);

}  // namespace moesweep
