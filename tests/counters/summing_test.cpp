// Uncore counts are summed over every counter of an event: per CCX (amd_l3 on
// each cpumask CPU), per DF channel and per UMC. The plans come from recorded
// trees holding the real CPU and PMU counts (8 and 12 CCXs, 12 UMCs); the
// opener is a stand-in because no hardware PMU exists on these VMs, and the
// readings are the kernel's (value, time_enabled, time_running) triples.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "counter_test_data.hpp"
#include "counters/counter_profile.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/perf_backend.hpp"
#include "counters/perf_event_sets.hpp"
#include "support/test_support.hpp"
#include "util/paths.hpp"

namespace moesweep::counters {
namespace {
namespace fs = std::filesystem;

std::size_t planned(const EventPlan& plan, const std::string& event) {
  return static_cast<std::size_t>(
      std::count_if(plan.counters.begin(), plan.counters.end(),
                    [&](const PlannedCounter& c) { return c.event == event; }));
}

// An opener for the recorded PMUs: a placeholder fd per planned counter.
std::variant<PerfFd, PerfOpenError> stand_in(const perf_event_attr&, int, int) {
  return PerfFd();
}

TEST(RecordedSysfs, RealCcxAndChannelCounts) {
  const auto zen3 = plan_profile_events(shipped("amd-zen3"), SysfsPmus(kSysfs / "amd-zen3"),
                                        EventScope::kSystem, "");
  EXPECT_EQ(planned(zen3, "L3_LOOKUPS"), 8u);  // EPYC 7763: 8 CCXs
  EXPECT_EQ(planned(zen3, "DRAM_ANY"), 8u);    // 8 channels, one DF cpumask CPU
  const auto zen4 = plan_profile_events(shipped("amd-zen4"), SysfsPmus(kSysfs / "amd-zen4"),
                                        EventScope::kSystem, "");
  EXPECT_EQ(planned(zen4, "L3_HITS"), 12u);    // EPYC 9654: 12 CCXs
  EXPECT_EQ(planned(zen4, "DRAM_READ"), 24u);  // 12 channels, local + remote cores
  const auto zen5 = plan_profile_events(shipped("amd-zen5"), SysfsPmus(kSysfs / "amd-zen5"),
                                        EventScope::kSystem, "");
  EXPECT_EQ(planned(zen5, "L3_MISSES"), 16u);   // EPYC 9175F: 16 CCXs of one core
  EXPECT_EQ(planned(zen5, "DRAM_WRITE"), 12u);  // amd_umc_0..11
}

TEST(RecordedSysfs, Zen4DramCountsTheRemoteSocketsCoresToo) {
  const auto plan = plan_profile_events(shipped("amd-zen4"), SysfsPmus(kSysfs / "amd-zen4"),
                                        EventScope::kSystem, "");
  std::set<std::uint64_t> configs;
  for (const auto& c : plan.counters)
    if (c.event == "DRAM_READ") configs.insert(c.attr.config);
  EXPECT_TRUE(configs.count(0x0700FE1Full));  // local_processor_read_data_beats_cs0
  EXPECT_TRUE(configs.count(0x0B00FE1Full));  // remote_processor_read_data_beats_cs0
  EXPECT_EQ(configs.size(), 24u);
}

// The zen4 tree's plan opened with stand-in fds, fed readings, and derived:
// every CCX's and channel's count is in the sum, each scaled for multiplexing.
TEST(RecordedSysfs, Zen4PerCcxAndPerChannelCountsAreSummedAndScaled) {
  const CounterProfile profile = shipped("amd-zen4");
  const EventPlan plan =
      plan_profile_events(profile, SysfsPmus(kSysfs / "amd-zen4"), EventScope::kSystem, "");
  EventCounters counters;
  open_event_plan(counters, plan, {}, stand_in);
  ASSERT_EQ(counters.fd_count(), plan.counters.size());
  CounterSnapshot before(plan.counters.size()), after(plan.counters.size());
  const std::map<std::string, std::uint64_t> per_counter = {{"L3_LOOKUPS", 1000},
                                                            {"L3_HITS", 600},
                                                            {"L3_MISSES", 400},
                                                            {"DRAM_READ", 50},
                                                            {"DRAM_WRITE", 10}};
  for (std::size_t i = 0; i < plan.counters.size(); ++i) {
    const bool df = plan.counters[i].pmu == "amd_df";
    // DF counters ran half the time (48 events on 16 counters): scaled x2.
    after[i] = {per_counter.at(plan.counters[i].event), 2000, df ? 1000u : 2000u};
  }
  std::set<std::string> never_ran;
  PhaseTotals totals;
  totals.events = counters.deltas(before, after, never_ran);
  EXPECT_TRUE(never_ran.empty());
  totals.repetitions = 1;
  totals.wall_s = 0.5;
  totals.tokens = 16;
  EXPECT_DOUBLE_EQ(totals.events["L3_LOOKUPS"], 12 * 1000);
  EXPECT_DOUBLE_EQ(totals.events["DRAM_READ"], 24 * 50 * 2);
  const auto m = derive_metrics(profile.metrics, totals);
  EXPECT_DOUBLE_EQ(m["l3_hit_rate"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(m["l3_misses_per_token"].get<double>(), 12 * 400 / 16.0);
  EXPECT_DOUBLE_EQ(m["dram_read_gbps"].get<double>(), 24 * 50 * 2 * 64 / 0.5 / 1e9);
  EXPECT_DOUBLE_EQ(m["dram_bytes_per_token"].get<double>(), 24 * (50 + 10) * 2 * 64 / 16.0);
}

TEST(RecordedSysfs, Zen3TreeIsNps1) {
  EXPECT_EQ(numa_nodes_per_socket(kSysfs / "amd-zen3"), 1);
  EXPECT_FALSE(numa_nodes_per_socket(kSysfs / "kvm-guest"));  // the tree does not say
}

// The zen3 tree copied with three more NUMA nodes on its one socket: NPS4,
// where the data fabric's DRAM counts are not exact.
TEST(RecordedSysfs, Zen3InNps4SaysDramIsNotExact) {
  const fs::path tree = moesweep::test::scratch_dir() / "amd-zen3-nps4";
  fs::copy(kSysfs / "amd-zen3", tree, fs::copy_options::recursive);
  for (int n = 1; n < 4; ++n) {
    fs::create_directories(tree / "devices/system/node" / ("node" + std::to_string(n)));
    std::ofstream(tree / "devices/system/node" / ("node" + std::to_string(n)) / "cpulist")
        << n * 16 << "-" << n * 16 + 15 << "\n";
  }
  // A memory-only node (CXL) has no CPUs and does not make it NPS5.
  fs::create_directories(tree / "devices/system/node/node4");
  std::ofstream(tree / "devices/system/node/node4/cpulist") << "\n";
  EXPECT_EQ(numa_nodes_per_socket(tree), 4);
  CounterOptions o;
  o.sysfs_root = tree;
  o.cpuinfo = tree / "proc-cpuinfo";
  const auto availability = PerfBackend(o).metric_availability();
  for (const char* name : {"dram_gbps", "dram_bytes_per_token"}) {
    const std::string why = availability[name]["unavailable"];
    EXPECT_NE(why.find("NPS4"), std::string::npos) << why;
    EXPECT_NE(why.find("NPS1"), std::string::npos) << why;
  }
  // L3 is not affected by the NPS mode.
  EXPECT_EQ(availability["l3_hit_rate"]["unavailable"].get<std::string>().find("NPS"),
            std::string::npos);
}

}  // namespace
}  // namespace moesweep::counters
