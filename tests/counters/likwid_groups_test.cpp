// The likwid path reads events by the exact names each profile gives, so a miss
// event can never pass for a lookup count and two different miss events are
// never added. Group sums as likwid reports them (summed over its counters and
// threads) go through the same derivation a live likwid session uses.
#include <gtest/gtest.h>

#include <fstream>

#include "counter_test_data.hpp"
#include "counters/counter_profile.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/likwid_groups.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"
#include "util/paths.hpp"

namespace moesweep::counters {
namespace {

const LikwidGroupDef& group_of(const CounterProfile& p, const std::string& name) {
  for (const LikwidGroupDef& g : p.likwid.groups)
    if (g.name == name) return g;
  throw std::runtime_error(p.name + " has no likwid group " + name);
}

LikwidGroupTotals totals(std::map<std::string, double> events) {
  LikwidGroupTotals t;
  t.repetitions = 2;
  t.wall_s = 0.5;
  t.tokens = 100;
  t.events = std::move(events);
  return t;
}

// likwid 5.3's Zen 4 L3CACHE group: L3_CACHE_REQ (all), L3_MISS_REQ and
// L3_CACHE_REQ_MISS. A pattern gave ALL/(ALL+MISS) = 0.714 and added both
// misses; the exact names give (ALL - MISS) / ALL = 0.6.
TEST(LikwidGroups, Zen4L3HitRateIsAllMinusMissOverAll) {
  const auto m = derive_likwid_group(
      group_of(shipped("amd-zen4"), "L3CACHE"),
      totals({{"L3_CACHE_REQ", 1000}, {"L3_MISS_REQ", 300}, {"L3_CACHE_REQ_MISS", 400}}));
  EXPECT_DOUBLE_EQ(m["l3_hit_rate"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(m["l3_misses_per_token"].get<double>(), 4.0);
}

TEST(LikwidGroups, NewerEventNamesAreReadExactlyToo) {
  const auto zen4 = derive_likwid_group(group_of(shipped("amd-zen4"), "L3CACHE"),
                                        totals({{"L3_LOOKUP_STATE_ALL_TYPES", 1000},
                                                {"L3_LOOKUP_STATE_HIT", 600},
                                                {"L3_LOOKUP_STATE_MISS", 400}}));
  EXPECT_DOUBLE_EQ(zen4["l3_hit_rate"].get<double>(), 0.6);
  const auto zen3 =
      derive_likwid_group(group_of(shipped("amd-zen3"), "L3CACHE"),
                          totals({{"L3_ACCESS_ALL_TYPES", 1000}, {"L3_ACCESS_MISS", 400}}));
  EXPECT_DOUBLE_EQ(zen3["l3_hit_rate"].get<double>(), 0.6);
}

TEST(LikwidGroups, AGroupWithoutTheNamedEventsSaysSo) {
  const auto m = derive_likwid_group(group_of(shipped("amd-zen4"), "L3CACHE"),
                                     totals({{"L3_MISS_REQ", 300}, {"RETIRED_INSTRUCTIONS", 9}}));
  const std::string why = m["l3_hit_rate"]["unavailable"];
  EXPECT_NE(why.find("counts none of"), std::string::npos) << why;
  EXPECT_NE(why.find("L3_CACHE_REQ"), std::string::npos) << why;
}

// CAS_CMD_RD arrives as one sum over the 12 UMC counters (UMC0C0..UMC11C0).
TEST(LikwidGroups, Zen4MemFromUmcCasCommands) {
  const auto m = derive_likwid_group(group_of(shipped("amd-zen4"), "MEM"),
                                     totals({{"CAS_CMD_RD", 12 * 1e7}, {"CAS_CMD_WR", 12 * 2e6}}));
  EXPECT_DOUBLE_EQ(m["dram_read_gbps"].get<double>(), 12 * 1e7 * 64 / 0.5 / 1e9);
  EXPECT_DOUBLE_EQ(m["dram_bytes_per_token"].get<double>(), 12 * 1.2e7 * 64 / 100);
}

TEST(LikwidGroups, Zen4MemNeedsLikwid55) {
  const auto old = plan_likwid_groups(shipped("amd-zen4"), "5.3.0");
  ASSERT_EQ(old.groups.size(), 1u);
  EXPECT_EQ(old.groups[0].name, "L3CACHE");
  EXPECT_NE(old.unavailable.at("dram_gbps").find(">= 5.5.0"), std::string::npos);
  const auto current = plan_likwid_groups(shipped("amd-zen4"), "5.5.1");
  EXPECT_EQ(current.groups.size(), 2u);
  EXPECT_FALSE(current.unavailable.count("dram_gbps"));
}

TEST(LikwidGroups, MetricsLikwidCannotGiveCarryTheReason) {
  const std::map<std::string, std::pair<std::string, std::string>> cases = {
      {"amd-zen3", {"dram_read_gbps", "no MEM group"}},
      {"amd-zen5", {"dram_write_gbps", "CAS_CMD_ANY"}},
      {"amd-zen5", {"l3_hit_rate", "no L3CACHE group"}},
      {"intel-gnr", {"l3_hit_rate", "no L3CACHE group"}},
      {"intel-spr", {"l3_misses_per_token", "retired loads"}},
  };
  for (const auto& [profile, c] : cases) {
    const auto plan = plan_likwid_groups(shipped(profile), "5.5.0");
    ASSERT_TRUE(plan.unavailable.count(c.first)) << profile << " " << c.first;
    EXPECT_NE(plan.unavailable.at(c.first).find(c.second), std::string::npos)
        << profile << ": " << plan.unavailable.at(c.first);
  }
}

// Every shipped profile: each hardware metric comes from exactly one planned
// group, or is unavailable with a reason.
TEST(LikwidGroups, EveryProfileAccountsForEveryMetric) {
  for (const auto& e : std::filesystem::directory_iterator(profiles_dir() / "counters")) {
    const auto plan = plan_likwid_groups(load_counter_profile(e.path()), "");
    for (const std::string& metric : hardware_metric_names()) {
      int groups = 0;
      for (const auto& g : plan.groups)
        for (const auto& m : g.metrics) groups += m.name == metric;
      EXPECT_EQ(groups + static_cast<int>(plan.unavailable.count(metric)), 1)
          << e.path().filename() << " " << metric;
    }
  }
}

// A profile's likwid section is checked when loaded, like its perf events.
TEST(LikwidGroups, BadLikwidSectionsAreUserErrors) {
  const auto dir = moesweep::test::scratch_dir();
  const auto write = [&](const std::string& likwid) {
    const auto file = dir / "p.json";
    std::ofstream(file) << R"({"name": "p", "events": {}, "metrics": {}, "likwid": )" << likwid
                        << "}";
    return file;
  };
  EXPECT_THROW(load_counter_profile(write(R"({"groups": {"MEM": {"events": {"RD": 5}}}})")),
               UserError);
  EXPECT_THROW(load_counter_profile(write(
                   R"({"groups": {"MEM": {"events": {"RD": "CAS_CMD_RD"},
                       "metrics": {"dram_read_gbps": "WR * 64 / time"}}}})")),
               UserError);
  EXPECT_THROW(load_counter_profile(write(R"({"unavailable": {"l3_hit_rate": 1}})")), UserError);
  const auto ok = load_counter_profile(write(
      R"({"groups": {"MEM": {"events": {"RD": ["CAS_CMD_RD", "CAS_COUNT_RD"]},
          "metrics": {"dram_read_gbps": "RD * 64 / time / 1e9"}}}})"));
  ASSERT_EQ(ok.likwid.groups.size(), 1u);
  EXPECT_EQ(ok.likwid.groups[0].events.at("RD").size(), 2u);
}

}  // namespace
}  // namespace moesweep::counters
