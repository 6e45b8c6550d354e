#pragma once
// The shape of an engine-level working-set experiment that can show a cache
// effect. Small experts (the pool must span 1/8x..8x the usable L3 with
// points inside it, auto_l3.hpp) and a small hot set (one MoE layer, hidden
// 256, 2 attention heads, a 256-token vocabulary: the hot set must leave
// most of the cache to the experts), many experts used per token (the most
// routed bytes per token the left side of the span allows), Q8_0 (ggml's
// chunked kernel, the one the expert GEMV probe measures). Widened in steps
// (experts used, threads, hidden) until the largest pool is memory-bound;
// the ladder and the settings are plain data, tested on values.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace moesweep {

struct L3Shape {
  int hidden = 256;
  int experts_used = 8;
  int threads = 1;
  std::string text() const;  // "hidden 256, 8 experts used, 1 thread"
};

// Most routed bytes per token first: hidden 256 with 8 experts used, then 4
// (a smaller pool fits a small cache: 5 experts instead of 9), hidden 512
// (8, 4), hidden 1024; each at 1 thread, then at `cores`. A step whose span
// has too few pools inside the cache is skipped without measuring.
std::vector<L3Shape> l3_shape_ladder(int cores);

struct L3RunSettings {
  int repetitions = 5, blocks = 3, n_gen = 32;
  uint64_t block_seed = 1;
  std::string name = "l3-working-set";
};

// The sweep settings of the experiment (flag long name -> value): the MoE
// twins of auto-l3:0.125-8/4 and, with `dense_ff` > 0, the dense twin of
// the same active bytes.
std::map<std::string, nlohmann::json> l3_sweep_settings(const L3Shape& shape,
                                                        const L3RunSettings& run, int dense_ff);

// The dense twin's FFN whose active parameters per token come nearest to
// `moe_active` (llama3-70b at the shape's width; a multiple of 256).
int dense_ff_matching(const L3Shape& shape, double moe_active_params);

// m = S_TG x routed bytes per token / the kernel's out-of-cache bytes per
// second (report/working_set.hpp's kMemoryBoundShare).
double memory_bound_share(double s_tg, double routed_bytes_per_token, double kernel_gbps);

// Why no shape of the ladder can show a cache effect, from its best pilot.
std::string cannot_show_cache_effect(const L3Shape& best, double s_tg,
                                     double routed_bytes_per_token, double kernel_gbps,
                                     uint64_t usable_l3_bytes);

}  // namespace moesweep
