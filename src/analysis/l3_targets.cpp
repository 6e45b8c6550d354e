// The caches `moesweep l3` predicts for (analysis/l3_analysis.hpp).
#include <algorithm>

#include "analysis/l3_analysis.hpp"
#include "hw/cache_probe.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/topology.hpp"

namespace moesweep {

std::vector<CacheTarget> l3_cache_targets(const std::vector<std::string>& hardware) {
  std::vector<CacheTarget> out;
  const Topology here = probe_topology();
  if (here.l3_total_bytes() > 0)
    out.push_back({"this machine (hwloc)", here.l3_total_bytes(), domain_layout(here, here.cores),
                   CacheSource::kHwloc});
  if (const auto probe = load_cached_cache_probe(); probe && probe->effective_l3_bytes > 0) {
    const uint64_t domains = std::max<uint64_t>(1, here.l3_domains.size());
    const uint64_t eff = here.cores > 1 && probe->effective_l3_bytes_all > 0
                             ? probe->effective_l3_bytes_all
                             : probe->effective_l3_bytes;
    out.push_back({"this machine (measured)", eff, domain_layout(here, here.cores, eff / domains),
                   CacheSource::kMeasured});
  }
  for (const std::string& n : hardware.empty() ? hardware_profile_names() : hardware) {
    const HardwareProfile p = load_hardware_profile(n);
    if (p.l3_total_bytes() == 0) continue;
    const Topology t = evenly_split_topology(p.cores, p.l3_domains, p.l3_bytes_per_domain);
    out.push_back({p.name, p.l3_total_bytes(), domain_layout(t, t.cores), CacheSource::kProfile});
  }
  return out;
}

}  // namespace moesweep
