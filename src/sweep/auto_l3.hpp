#pragma once
// `--experts auto-l3:LO-HI[/N]`: expert counts chosen at plan time so that
// the routed-expert pool (every expert of every MoE layer) spans LO..HI times
// the cache this machine really gives a program: the usable L3 `moesweep hw
// --cache` measured (a VM may serve 3 of a nominal 32 MiB), else hwloc's
// total. N points per doubling (default 1). Without --expert-ff the expert
// size adapts to that cache, so the span has at least kMinSpanPoints points
// between 1/8x and 8x and kMinPointsInCache of them at or below 1x.
#include <cstdint>
#include <string>
#include <vector>

namespace moesweep {

struct ExpertsAutoL3 {
  double lo = 0, hi = 0;
  int per_doubling = 1;
  bool on() const { return hi > 0; }
};

inline constexpr int kMinSpanPoints = 8;     // between 1/8x and 8x the L3
inline constexpr int kMinPointsInCache = 3;  // at or below 1x: a cliff needs a left side

// Whether --experts is written as auto-l3:LO-HI.
bool is_experts_auto_l3(const std::string& text);
// "auto-l3:0.25-16" -> {0.25, 16, 1}; "auto-l3:0.125-8/4" -> 4 per doubling.
// UserError naming `origin` when malformed.
ExpertsAutoL3 parse_experts_auto_l3(const std::string& text, const std::string& origin);

// The L3 auto-l3 plans for, and both figures it had.
struct PlanL3 {
  uint64_t bytes = 0;     // planned for
  std::string source;     // "MOESWEEP_L3_BYTES", "measured (hw --cache)", "hwloc"
  uint64_t nominal = 0;   // hwloc's total L3 (0: hidden)
  uint64_t measured = 0;  // the cache probe's usable L3 (0: not measured here)
};
// $MOESWEEP_L3_BYTES (another machine, tests), else the measured usable L3
// for `threads` threads, else hwloc's. UserError when none is known.
PlanL3 l3_for_plan(int threads = 1);

// The counts for one expert of `expert_bytes` summed over the MoE layers:
// each at least `experts_used` + 1 and at most the engine's limit, distinct.
std::vector<int> experts_for_l3(const ExpertsAutoL3& range, uint64_t l3_bytes,
                                uint64_t expert_bytes, int experts_used);

// Points of `counts` between 1/8x and 8x, and at or below 1x.
struct SpanCoverage {
  int in_span = 0, in_cache = 0;
  bool enough() const { return in_span >= kMinSpanPoints && in_cache >= kMinPointsInCache; }
};
SpanCoverage span_coverage(const std::vector<int>& counts, uint64_t l3_bytes,
                           uint64_t expert_bytes);

// The largest expert FFN (a multiple of 256, up to `ff_max`) whose span is
// enough(); `bytes_of_ff` gives one expert's bytes over every MoE layer.
// 0 when even 256 is not.
template <typename BytesOfFf>
int expert_ff_for_span(const ExpertsAutoL3& range, uint64_t l3_bytes, int experts_used, int ff_max,
                       BytesOfFf bytes_of_ff) {
  for (int ff = ff_max / 256 * 256; ff >= 256; ff -= 256) {
    const uint64_t b = bytes_of_ff(ff);
    if (span_coverage(experts_for_l3(range, l3_bytes, b, experts_used), l3_bytes, b).enough())
      return ff;
  }
  return 0;
}

}  // namespace moesweep
