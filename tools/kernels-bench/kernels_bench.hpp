#pragma once
// Each file registers one family of benchmarks; main.cpp calls them.
#include "hw/topology.hpp"

namespace moesweep::bench {

// memory_read/threads:N for N = 1..cores, threads pinned and spread over L3 domains.
void register_memory_bandwidth(const Topology& topo);
// expert_gemv/<type>/experts:E: mul_mat_id over E experts, random 8 per layer per token.
// `threads`: ggml compute threads (0 = all physical cores).
void register_expert_working_set(const Topology& topo, int threads);

}  // namespace moesweep::bench
