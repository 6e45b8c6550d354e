#pragma once
// The caches valgrind simulates for --counters sim (--sim-cache): I1, D1 and
// the last level (LL), each size, associativity and line. Fixed here rather
// than read from the host (valgrind's default), so that counts do not depend
// on the machine they were taken on.
#include <cstdint>
#include <string>
#include <vector>

namespace moesweep::counters {

struct CacheGeometry {
  uint64_t size_bytes = 0;
  int ways = 0;
  int line_bytes = 64;
  bool operator==(const CacheGeometry&) const = default;
};

struct SimCacheConfig {
  CacheGeometry i1{32 * 1024, 8, 64};
  CacheGeometry d1{32 * 1024, 8, 64};
  CacheGeometry ll{32ull << 20, 16, 64};  // an EPYC 9175F CCD's L3
  bool operator==(const SimCacheConfig&) const = default;
};

// "LL=32MiB,16[,64] D1=48KiB,12 I1=32KiB,8": any of the three, separated by
// spaces or ';', sizes in B, KiB, MiB or GiB (K, M, G alike); "" = defaults.
// Every level must be one valgrind accepts (a size below 2 GiB and above one
// line, sets = size / (ways x line) a power of two, line a power of two of
// 16-512 bytes, lines no larger in LL than in D1 and I1). UserError naming
// `flag` otherwise, before anything runs.
SimCacheConfig parse_sim_cache(const std::string& text, const std::string& flag = "--sim-cache");
// A byte size as the user may write it ("4MiB", "512MiB", "48KiB"); UserError naming `flag`.
uint64_t parse_cache_size(const std::string& text, const std::string& flag);

// "32 MiB 16-way" (a size in the largest unit that divides it).
std::string geometry_text(const CacheGeometry& g);
// "LL 32 MiB 16-way": what tables and the report put in their header.
std::string sim_cache_label(const SimCacheConfig& c);
// The same config back as --sim-cache text (round-trips through parse_sim_cache).
std::string sim_cache_text(const SimCacheConfig& c);
// valgrind's --I1=, --D1=, --LL= arguments.
std::vector<std::string> valgrind_cache_args(const SimCacheConfig& c);

}  // namespace moesweep::counters
