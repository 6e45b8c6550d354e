#pragma once
// `predict --trace FILE`: the decode roofline with and without the L3 term
// (l3_term.hpp) for a model profile on a hardware's L3. The trace's read
// stream, hot set included, is given the predicted model's sizes and
// simulated at the hardware's L3 exactly: one shared byte-LRU, and the band
// of cache models over the hardware's L3 domains with ggml's row schedule at
// its core count. Plain values; the CLI prints them.
#include <cstddef>
#include <filesystem>
#include <string>

#include "analysis/l3_model.hpp"
#include "analysis/l3_term.hpp"
#include "analysis/routing_trace.hpp"
#include "model/model_profile.hpp"

namespace moesweep {

struct PredictL3Input {
  std::string trace;          // routing.trace.zst or its directory
  std::string model_profile;  // profiles/models name: where routed and hot bytes come from
  std::string quant;          // the predicted quant (its expert type sets ggml's row schedule)
  double bytes_per_weight = 0;
  double kv_bytes = 0;  // per token at the depth predicted (streamed, never cached)
  double l3_bytes = 0;  // the hardware's L3 (0: this machine's, from hwloc)
  int cores = 0;        // the hardware's cores = decode threads (0: one shared cache)
  int l3_domains = 1;
  double bandwidth_gbps = 0;
};

// The bytes a decoded token reads as predict counts them: every active
// parameter and one embedding row at `bytes_per_weight`, of which the routed
// experts' share is routed (the rest hot); the KV cache is streamed.
struct TokenBytes {
  L3Inputs in;              // hot, routed per token, streamed, bandwidth
  double routed_total = 0;  // every routed expert's bytes (the pool the trace is scaled to)
};
TokenBytes token_bytes(const ModelProfile& p, double bytes_per_weight, double kv_bytes,
                       double bandwidth_gbps);

// The hardware's cache: `cores` threads over `l3_domains` even domains of
// `l3_bytes` in all (no cores: one shared cache), one expert's matrices as
// the model's files lay them out, with the quant's row schedule.
CacheMachine predicted_cache_machine(const ModelProfile& p, const std::string& quant,
                                     double l3_bytes, int cores, int l3_domains);

struct L3TermPrediction {
  std::filesystem::path trace_file;
  TraceModel trace_model;  // the traced model's experts
  ModelProfile model;      // the predicted one
  double l3_bytes = 0;
  TokenBytes bytes;
  L3Estimate shared;  // one shared byte-LRU of the whole L3
  CacheMachine machine;
  double dynamic_share = 0;  // of expert bytes on an unpredictable domain each step
  HitBand band;              // every cache model over the domains
  double tps_pessimistic = 0, tps_optimistic = 0;  // the roofline at the band's ends
};

// UserError when the trace or the profile cannot be read.
L3TermPrediction predict_l3_term(const PredictL3Input& in);

// The ggml type name of a quant's routed experts ("Q4_K_S" -> "q4_K", "Q8_0" -> "q8_0").
std::string expert_type_of_quant(const std::string& quant);

}  // namespace moesweep
