// The cache probe: knees found on curves shaped like the ones measured (no
// timing asserted: the curves are numbers written here), the probe's
// mechanics on a small span, and its stored file read back typed.
#include <gtest/gtest.h>

#include <cstdlib>

#include "hw/cache_probe.hpp"
#include "hw/topology.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * 1024;

// The 2-vCPU Zen 3 VM of issue 22 (a chase, THP, idle): L1 48 KiB... L2 512 KiB,
// 17.5 ns at 1 MiB, 19.8 at 2 MiB, ~97 ns at 4-12 MiB, ~170 ns beyond.
std::vector<CurveSample> vm_latency() {
  return {{16 * KiB, 1.2},  {32 * KiB, 1.2}, {64 * KiB, 3.5}, {128 * KiB, 3.6}, {256 * KiB, 3.8},
          {512 * KiB, 4.5}, {768 * KiB, 15}, {1 * MiB, 17.5}, {2 * MiB, 19.8},  {3 * MiB, 40},
          {4 * MiB, 97},    {6 * MiB, 96},   {8 * MiB, 98},   {12 * MiB, 99},   {16 * MiB, 165},
          {32 * MiB, 172},  {64 * MiB, 178}, {128 * MiB, 181}};
}

TEST(CacheKnees, EachLevelOfTheVmsCurveIsOneKnee) {
  const auto knees = find_knees(vm_latency(), true);
  ASSERT_EQ(knees.size(), 4u);  // L1 -> L2, L2 -> L3, L3 -> the 97 ns level, -> DRAM
  EXPECT_GT(knees[0].bytes, 32 * KiB);
  EXPECT_LT(knees[0].bytes, 64 * KiB);
  EXPECT_GT(knees[2].bytes, 2 * MiB);
  EXPECT_LT(knees[2].bytes, 4 * MiB);
  EXPECT_DOUBLE_EQ(knees[2].before, 19.8);
  EXPECT_DOUBLE_EQ(knees[2].after, 97);
  EXPECT_GT(knees[3].bytes, 12 * MiB);
  EXPECT_LT(knees[3].bytes, 16 * MiB);
}

TEST(CacheKnees, TheUsableL3IsTheStepIntoMemoryAboveTheL2) {
  const auto knees = find_knees(vm_latency(), true);
  const uint64_t usable = usable_llc_bytes(knees, 512 * KiB);
  EXPECT_GT(usable, 2 * MiB);  // ~3 MiB of the nominal 32
  EXPECT_LT(usable, 4 * MiB);
  EXPECT_EQ(usable_llc_bytes({}, 512 * KiB), 0u);
}

// A pointer chase on the same VM class another time (scripts/bench/l3-decisive,
// 2026-12-02, one thread): the step out of the 512 KiB L2 spilled past it in two
// small steps (11.9 -> 16.5 ns at ~720 KiB, 17 -> 24 ns at ~3.4 MiB) before the 7x
// step to DRAM at ~7.7 MiB. The usable cache ends at that biggest step, not at
// the first knee above the L2 (which read 0.7 MiB and misplanned the run).
TEST(CacheKnees, TheUsableL3IsTheBiggestStepAboveTheL2NotTheFirst) {
  const std::vector<CurveSample> chase = {
      {256 * KiB, 3.8},     {320 * KiB, 7.2},  {404 * KiB, 9.1},   {512 * KiB, 11.7},
      {644 * KiB, 11.9},    {812 * KiB, 16.9}, {1 * MiB, 16.5},    {1331 * KiB, 17.5},
      {1638 * KiB, 16.7},   {2 * MiB, 16.7},   {2560 * KiB, 17.3}, {3277 * KiB, 19.0},
      {4 * MiB, 24.1},      {5 * MiB, 30.7},   {6451 * KiB, 24.8}, {8 * MiB, 75.8},
      {10342 * KiB, 177.7}, {13 * MiB, 175.0}, {16 * MiB, 179.1},  {32 * MiB, 170.7},
      {64 * MiB, 171.1}};
  const auto knees = find_knees(chase, true);
  ASSERT_GE(knees.size(), 2u);
  EXPECT_LT(knees[1].bytes, 1 * MiB);  // the small step the first-knee rule took
  const uint64_t usable = usable_llc_bytes(knees, 512 * KiB);
  EXPECT_GT(usable, 6 * MiB);
  EXPECT_LT(usable, 10 * MiB);
}

TEST(CacheKnees, BandwidthFallsWhereLatencyRisesAndNoiseIsNoKnee) {
  const std::vector<CurveSample> bw = {{1 * MiB, 60}, {2 * MiB, 58}, {3 * MiB, 40},
                                       {4 * MiB, 22}, {8 * MiB, 21}, {16 * MiB, 20}};
  const auto knees = find_knees(bw, false);
  ASSERT_EQ(knees.size(), 1u);
  EXPECT_GT(knees[0].bytes, 2 * MiB);
  EXPECT_LT(knees[0].bytes, 4 * MiB);
  // +-10% wobble on a plateau is not a cache level.
  EXPECT_TRUE(
      find_knees({{1 * MiB, 100}, {2 * MiB, 108}, {4 * MiB, 99}, {8 * MiB, 110}, {16 * MiB, 101}},
                 true)
          .empty());
}

TEST(CacheProbe, SizesDoubleInTheStepsAskedAndStayWholePages) {
  const auto s = cache_probe_sizes(16 * KiB, 1 * MiB, 2);
  ASSERT_EQ(s.size(), 13u);  // 16 KiB .. 1 MiB, sqrt(2) apart
  EXPECT_EQ(s.front(), 16 * KiB);
  EXPECT_EQ(s.back(), 1 * MiB);
  for (uint64_t b : s) EXPECT_EQ(b % 4096, 0u);
}

TEST(CacheProbe, MeasuresPositiveFiguresAndStoresThemBesideTheBandwidth) {
  CacheProbeOptions o;
  o.min_bytes = 64 * KiB;
  o.max_bytes = 4 * MiB;
  o.points_per_doubling = 1;
  o.rounds = 1;
  o.gemv_seconds = 0.02;
  const CacheProbeResult r = measure_cache(o);
  ASSERT_EQ(r.points.size(), 7u);
  for (const CacheProbePoint& p : r.points) {
    EXPECT_GT(p.latency_ns, 0);
    EXPECT_GT(p.gbps, 0);
    if (r.threads > 1) {
      EXPECT_GT(p.gbps_all, 0);
    }
  }
  ASSERT_FALSE(r.gemv.empty());
  EXPECT_GT(r.gemv.front().gbps, 0);
  EXPECT_EQ(r.nominal_l3_bytes, probe_topology().l3_total_bytes());
  // Stored per machine, read back field for field.
  const char* before = std::getenv("MOESWEEP_CACHE_DIR");
  const std::string kept = before ? before : "";
  ::setenv("MOESWEEP_CACHE_DIR", (test::scratch_dir() / "cache-probe").c_str(), 1);
  save_cached_cache_probe(r);
  const auto back = load_cached_cache_probe();
  if (kept.empty())
    ::unsetenv("MOESWEEP_CACHE_DIR");
  else
    ::setenv("MOESWEEP_CACHE_DIR", kept.c_str(), 1);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->points.size(), r.points.size());
  EXPECT_EQ(back->effective_l3_bytes, r.effective_l3_bytes);
  EXPECT_EQ(back->gemv.size(), r.gemv.size());
  EXPECT_EQ(cache_probe_path().parent_path().filename(), "hw");
}

TEST(CacheProbe, AMistypedOrOversizedFileIsRefusedNamingIt) {
  nlohmann::json j = to_json(CacheProbeResult{});
  j["effective_l3_bytes"] = "3 MiB";
  EXPECT_THROW(cache_probe_from_json(j, "f.json"), UserError);
  j = to_json(CacheProbeResult{});
  j["points"] = nlohmann::json::array();
  for (int i = 0; i < 5000; ++i) j["points"].push_back({{"bytes", 1}, {"latency_ns", 1.0}});
  EXPECT_THROW(cache_probe_from_json(j, "f.json"), UserError);
  j = to_json(CacheProbeResult{});
  j["effective_l3_bytes"] = -1;
  try {
    cache_probe_from_json(j, "f.json");
    ADD_FAILURE() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace moesweep
