#pragma once
// `moesweep hw --cache`: the cache probe's table, knees and the effective L3
// beside hwloc's nominal one.
#include "hw/cache_probe.hpp"

namespace moesweep::cli {

// The whole table when `table`, else the one-line summary.
void print_cache_probe(const CacheProbeResult& r, bool table);

}  // namespace moesweep::cli
