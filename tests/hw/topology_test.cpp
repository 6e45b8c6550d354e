#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <set>

#include "hw/hardware_profile.hpp"
#include "hw/topology.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(Topology, CoresAndPinOrderAreConsistent) {
  const Topology t = probe_topology();
  EXPECT_GE(t.sockets, 1);
  EXPECT_GE(t.cores, 1);
  EXPECT_GE(t.pus, t.cores);
  EXPECT_GT(t.memory_bytes, 0u);
  EXPECT_EQ(static_cast<int>(t.spread_cpus.size()), t.cores);
  const std::set<int> distinct(t.spread_cpus.begin(), t.spread_cpus.end());
  EXPECT_EQ(distinct.size(), t.spread_cpus.size());
  for (const auto& d : t.l3_domains) {
    EXPECT_GT(d.size_bytes, 0u);
    EXPECT_FALSE(d.cpus.empty());
  }
}

TEST(Topology, SpreadOrderAlternatesL3Domains) {
  const Topology t = probe_topology();
  if (t.l3_domains.size() < 2) GTEST_SKIP() << "one L3 domain here: nothing to alternate";
  auto domain_of = [&](int cpu) {
    for (size_t d = 0; d < t.l3_domains.size(); ++d)
      if (std::count(t.l3_domains[d].cpus.begin(), t.l3_domains[d].cpus.end(), cpu)) return d;
    return t.l3_domains.size();
  };
  EXPECT_NE(domain_of(t.spread_cpus[0]), domain_of(t.spread_cpus[1]));
}

TEST(Topology, CpuListText) {
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpu_list_text({5}), "5");
  EXPECT_EQ(cpu_list_text({}), "");
}

TEST(HardwareProfile, Epyc9175fTheoreticalBandwidthIs614GBs) {
  const HardwareProfile p = load_hardware_profile("epyc-9175f");
  EXPECT_EQ(p.cores, 16);
  EXPECT_EQ(p.l3_domains, 16);
  EXPECT_EQ(p.l3_total_bytes(), 512ull << 20);
  EXPECT_DOUBLE_EQ(p.theoretical_bandwidth_gbps(), 614.4);  // 12 x 6400 MT/s x 8 B
}

TEST(HardwareProfile, MatchedByCpuModelNameElseGeneric) {
  EXPECT_EQ(match_hardware_profile("AMD EPYC 9175F 16-Core Processor").name, "epyc-9175f");
  const HardwareProfile g = match_hardware_profile("Some Future CPU 9000");
  EXPECT_EQ(g.name, "generic");
  EXPECT_EQ(g.theoretical_bandwidth_gbps(), 0);
}

TEST(HardwareProfile, UnknownNameListsTheShippedOnes) {
  try {
    load_hardware_profile("epyc-1");
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.expected().find("epyc-9175f"), std::string::npos) << e.expected();
  }
}

}  // namespace
}  // namespace moesweep
