#pragma once
// Where a latency or bandwidth curve over working-set sizes steps from one
// level of the memory hierarchy to the next. Pure arithmetic on the measured
// points (unit-tested on numbers), so the probe and the tests share it.
#include <cstdint>
#include <vector>

namespace moesweep {

struct CurveSample {
  uint64_t bytes = 0;  // working-set size
  double value = 0;    // ns per load (latency) or GB/s (bandwidth)
};

// One step of the hierarchy: the working-set size at which the curve crosses
// the geometric middle between the level below and the level above.
struct CacheKnee {
  uint64_t bytes = 0;
  double before = 0;          // value on the faster side (the last point before the step)
  double after = 0;           // value on the slower side (the first point after it)
  uint64_t before_bytes = 0;  // size of the last point before the step
};

// A step must change the value by at least this factor to be a knee: the
// run-to-run noise of one point on a shared VM is ~10-20%, a cache level
// boundary is 1.5-10x.
inline constexpr double kMinKneeRatio = 1.3;

// A segment between two sizes is part of a step when it gets slower by more
// than this per doubling of the working set: a cache boundary is 1.5-5x per
// doubling, a plateau's drift (TLB, prefetch) 5-15%.
inline constexpr double kSteepPerDoubling = 1.25;

// Knees of a curve sorted by size. `higher_is_slower`: true for latency,
// false for bandwidth. A run of consecutive steep segments is one step; it is
// a knee when the whole run moves by kMinKneeRatio or more.
std::vector<CacheKnee> find_knees(const std::vector<CurveSample>& curve, bool higher_is_slower);

// The usable last-level cache: of the knees whose faster side was measured
// above `private_cache_bytes` (the per-core L2; the L2 -> L3 step starts at
// or below it), the biggest step: the one out of the cache into memory. Not
// the first: on a busy shared host the L2 -> L3 step can spill past the L2's
// size in two small steps (1.4x each, then 7x to DRAM at 8 MiB, measured),
// and the first of them is not the cache's end. 0 when there is none (the
// curve never leaves the cache).
uint64_t usable_llc_bytes(const std::vector<CacheKnee>& knees, uint64_t private_cache_bytes);

}  // namespace moesweep
