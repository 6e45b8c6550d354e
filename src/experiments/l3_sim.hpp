#pragma once
// `moesweep l3-run --simulate`: the L3 question asked of a simulated cache.
// The same twins (MoE at routing skews 0 and 1.5, and the dense twin of the
// same active bytes) decode under valgrind's callgrind (--counters sim) with
// last-level caches from a core's share (4 MiB) to a whole EPYC 9175F
// (512 MiB); each size gives the engine's own LL hit rate and DRAM bytes per
// generated token. Beside each point, the trace-based byte-LRU model
// (`moesweep l3`) predicts the same for the same twin from its routing
// trace, so the model meets the real engine's access stream, which wall time
// on a shared VM could not show. Plain values; the CLI runs the sweeps.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/routing_trace.hpp"

namespace moesweep {

struct L3SimOptions {
  std::vector<uint64_t> ll_bytes;  // the simulated LL sizes (default_sim_llc_sizes())
  std::vector<double> skews = {0, 1.5};
  bool dense = true;
  uint64_t pool_bytes = 1ull << 30;                   // every routed expert of the MoE twins
  int experts = 384, experts_used = 8, hidden = 256;  // Kimi K2.5's expert count and top-k
  int n_gen = 32, repetitions = 2;
  std::string name = "l3-sim";
};

// 4, 8, ..., 512 MiB.
std::vector<uint64_t> default_sim_llc_sizes();
// "4MiB,32MiB,512MiB"; UserError naming `flag` (each size must be one valgrind
// takes as a 16-way LL of 64-byte lines).
std::vector<uint64_t> parse_sim_llc(const std::string& list, const std::string& flag);

struct L3SimTwin {
  std::string label;  // "MoE skew 0", "MoE skew 1.5", "dense"
  double skew = 0;
  bool dense = false;
};
std::vector<L3SimTwin> l3_sim_twins(const L3SimOptions& o);

// The MoE twins' expert FFN (a multiple of 256) whose pool comes nearest to
// o.pool_bytes, and the dense twin's FFN of the same active parameters.
int sim_expert_ff(const L3SimOptions& o);
int sim_dense_ff(const L3SimOptions& o, int expert_ff);

// One sweep's settings: `twin` with the LL of `ll_bytes` under --counters
// sim; ll_bytes = 0: the native run that records the routing trace.
std::map<std::string, nlohmann::json> l3_sim_settings(const L3SimOptions& o, const L3SimTwin& twin,
                                                      int expert_ff, int dense_ff,
                                                      uint64_t ll_bytes);

struct L3SimPoint {
  uint64_t ll_bytes = 0;
  std::optional<double> sim_hit, sim_dram;      // TG: LL hit rate, DRAM bytes per token (valgrind)
  std::string sim_unavailable;                  // why not, when unset
  std::optional<double> model_hit, model_dram;  // byte-LRU with the hot set (weights only)
  std::string run_dir;
};

struct L3SimCurve {
  L3SimTwin twin;
  uint64_t hot_bytes = 0, routed_bytes_per_token = 0, routed_bytes_total = 0;
  std::vector<L3SimPoint> points;
};

// The simulated TG figures of a --counters sim record's tg counters.
void take_simulated(L3SimPoint& p, const nlohmann::json& tg_counters);
// The model beside each point: byte-LRU over the twin's trace (experts and
// hot set), weights only: DRAM = hot x (1 - hot hit) + routed x (1 - hit).
void add_trace_model(L3SimCurve& c, const RoutingTrace& trace);
// The dense twin has no routing: every token reads all its weights in one
// order, so an LRU keeps them when they fit and none of them when not.
void add_dense_model(L3SimCurve& c, uint64_t weight_bytes);

nlohmann::json l3_sim_json(const std::vector<L3SimCurve>& curves);
std::string l3_sim_markdown(const std::vector<L3SimCurve>& curves, const std::string& cache_note);
// scripts/plot's "xy" figures: hit rate and DRAM MB per token against LL size.
nlohmann::json l3_sim_plot_data(const std::vector<L3SimCurve>& curves);

}  // namespace moesweep
