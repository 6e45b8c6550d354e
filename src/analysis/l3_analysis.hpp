#pragma once
// `moesweep l3`'s results from one routing trace: popularity per layer, reuse
// distances, the LRU hit-rate curve over cache sizes, and the predicted hit
// rate for named caches (this machine's nominal and measured L3, hardware
// profiles): the hot set simulated inside the LRU stream, and the band of
// cache models over the machine's L3 domains. Plain values; the CLI prints them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/cache_sim.hpp"
#include "analysis/expert_popularity.hpp"
#include "analysis/l3_model.hpp"
#include "analysis/routing_trace.hpp"

namespace moesweep {

// Where a target's cache size comes from.
enum class CacheSource {
  kHwloc,     // this machine, as hwloc reports it
  kMeasured,  // this machine, as `hw --cache` measured it (the usable L3)
  kProfile,   // a hardware profile (profiles/hardware)
};

struct CacheTarget {
  std::string name;  // "this machine (hwloc)", "this machine (measured)", "epyc-9175f"
  uint64_t l3_bytes = 0;
  DomainLayout layout;  // threads and domains; empty: one shared cache of l3_bytes
  CacheSource source = CacheSource::kProfile;
};

// This machine as hwloc reports it and, when `hw --cache` ran, as measured;
// then each hardware profile of `hardware` (all when empty) with an L3, its
// domains cut evenly over its cores.
std::vector<CacheTarget> l3_cache_targets(const std::vector<std::string>& hardware);

struct TargetPrediction {
  CacheTarget target;
  HitRates alone;              // experts alone in one shared byte-LRU of the whole L3
  HitRates with_hot;           // experts and hot set in one shared byte-LRU
  HitBand band;                // every cache model over the target's domains
  double dynamic_share = 0;    // of expert bytes on an unpredictable domain per step
  bool domains_known = false;  // the trace carries the expert's matrices
};

struct CurvePoint {
  uint64_t cache_bytes = 0;
  HitRates hit;
};

struct L3Analysis {
  TraceModel model;
  uint64_t tokens_prefill = 0, tokens_generation = 0;
  int prefill_microbatches = 0;  // at the first MoE layer; < 2: prefill hit rates say nothing
  std::vector<Popularity> layers;
  Popularity mean;
  double requested_skew = -1;  // the twin's routing_skew when the trace names it, else -1
  std::vector<LayerReuse> reuse;
  std::vector<CurvePoint> curve;  // standard_cache_sizes(), hot set in the stream
  std::vector<CurvePoint> fine;   // log-spaced, for the plot
  HitRates ceiling;               // infinite cache (cold misses only)
  std::vector<TargetPrediction> targets;
  bool prefill_meaningful() const { return prefill_microbatches >= 2; }
};

// The expert matrices of the traced model with ggml's row schedule on an
// AVX2 machine (l3_domains.hpp); empty when the trace predates those facts.
std::vector<ExpertMatrix> trace_expert_matrices(const TraceModel& m, bool avx512 = false);

L3Analysis analyse_trace(const RoutingTrace& trace, const std::vector<CacheTarget>& targets);
nlohmann::json to_json(const L3Analysis& a);
// cache_bytes,cache_mib,hit_generation,hit_prefill,hit_all (one row per standard size)
std::string curve_csv(const L3Analysis& a);
// What scripts/plot draws as l3_hit_rate.png (key "l3_curve").
nlohmann::json l3_plot_data(const L3Analysis& a, const std::string& title);

}  // namespace moesweep
