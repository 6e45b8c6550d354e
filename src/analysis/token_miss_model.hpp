#pragma once
// Each timed token's predicted miss bytes under a byte-LRU of size S (issue
// 46). sweep --trace-routing times a TG sample's calls with the routing tap
// off and decodes the same tokens at the same positions once more, traced;
// everything else the context decoded (fills, warm-ups, PP samples) is in the
// trace too. So the stream of weight reads the engine really made is the
// trace with each timed call put back where it ran: at the trace's step count
// when it began, a copy of its traced pass's steps. That stream goes through
// the existing model (cache_sim.hpp: hot set and routed experts, byte-LRU
// stack distances), and each copied token gets the bytes it read whose stack
// distance exceeds S (first reads miss at every S).
#include <cstdint>
#include <vector>

#include "analysis/routing_trace.hpp"

namespace moesweep {

// A timed call put back into its context's trace.
struct SplicedCall {
  int64_t at = 0;          // the trace's step count when the call began
  int64_t pass_first = 0;  // the first step of the traced pass of the same tokens
  size_t tokens = 0;       // generated tokens in the call (one decode step each)
};

// The steps [first, end) of `tokens` generation tokens from step `first`
// (each token one step per MoE layer, layers ascending); UserError naming
// `what` when the trace does not hold them there.
int64_t pass_end(const RoutingTrace& trace, int64_t first, size_t tokens, const std::string& what);

// [size][token]: every spliced call's tokens in the order of `calls`, each
// call's tokens in order. Calls at one step go in in the order given.
std::vector<std::vector<double>> spliced_miss_bytes(const RoutingTrace& trace,
                                                    const std::vector<SplicedCall>& calls,
                                                    const std::vector<uint64_t>& sizes,
                                                    const std::string& what);

}  // namespace moesweep
