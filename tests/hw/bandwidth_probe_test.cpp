// The probe's mechanics, not its speed (no timed assertions): it pins where it
// is told, returns positive figures, and caches per machine.
#include <gtest/gtest.h>
#include <sched.h>

#include <fmt/format.h>
#include <cstdlib>

#include <fstream>

#include "hw/bandwidth_probe.hpp"
#include "hw/topology.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

TEST(BandwidthProbe, WorkersRunPinnedToTheCpusAsked) {
  const std::vector<int> cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  // Every allowed CPU once, in reverse, so a pin that silently failed shows.
  const std::vector<int> order(cpus.rbegin(), cpus.rend());
  PinnedReaders readers(order, 1 << 20);
  const auto seen = readers.observed_affinity();
  ASSERT_EQ(seen.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i)
    EXPECT_EQ(seen[i], std::vector<int>{order[i]}) << "worker " << i;
  EXPECT_GT(readers.run_pass(readers.size()).seconds, 0.0);
}

TEST(BandwidthProbe, ReturnsAPositiveFigurePerThreadCount) {
  BandwidthProbeOptions o;
  o.seconds = 0.2;
  o.bytes_per_thread = 16 << 20;
  const BandwidthMeasurement m = measure_bandwidth(o);
  ASSERT_EQ(static_cast<int>(m.points.size()), probe_topology().cores);
  for (size_t i = 0; i < m.points.size(); ++i) {
    EXPECT_EQ(m.points[i].threads, static_cast<int>(i) + 1);
    EXPECT_GT(m.points[i].gbps, 0.0);
    EXPECT_GE(m.points[i].passes, 5) << "a median needs passes";
    EXPECT_LE(m.points[i].overlapped_passes, m.points[i].passes);
    if (m.points[i].overlapped_passes == 0) {
      EXPECT_EQ(m.points[i].peak_gbps, 0.0);
    }
  }
  EXPECT_GT(m.gbps, 0.0);
  EXPECT_GE(m.threads, 1);
  EXPECT_EQ(m.bytes_per_thread, 16u << 20);
}

TEST(BandwidthProbe, TooManyThreadsIsAUserError) {
  BandwidthProbeOptions o;
  o.thread_counts = {probe_topology().cores + 1};
  EXPECT_THROW(measure_bandwidth(o), UserError);
}

// Points the cache at a scratch directory for one test, then puts it back.
class ScopedCacheDir {
 public:
  explicit ScopedCacheDir(const std::filesystem::path& dir) {
    if (const char* old = std::getenv("MOESWEEP_CACHE_DIR")) old_ = old;
    setenv("MOESWEEP_CACHE_DIR", dir.c_str(), 1);
  }
  ~ScopedCacheDir() {
    if (old_.empty())
      unsetenv("MOESWEEP_CACHE_DIR");
    else
      setenv("MOESWEEP_CACHE_DIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(BandwidthProbe, CachedPerMachine) {
  const ScopedCacheDir scoped(test::scratch_dir());
  EXPECT_FALSE(load_cached_bandwidth().has_value());
  BandwidthMeasurement m;
  m.points = {{1, 20.5, 22.0, 9, 9}, {2, 31.0, 0, 7, 0}};
  m.gbps = 31.0;
  m.threads = 2;
  m.machine_key = machine_key();
  m.measured_at = "2026-11-29T20:00:00Z";
  save_cached_bandwidth(m);
  const auto loaded = load_cached_bandwidth();
  ASSERT_TRUE(loaded.has_value());
  EXPECT_DOUBLE_EQ(loaded->gbps, 31.0);
  ASSERT_EQ(loaded->points.size(), 2u);
  EXPECT_DOUBLE_EQ(loaded->points[0].peak_gbps, 22.0);
  EXPECT_EQ(loaded->points[1].overlapped_passes, 0);
  EXPECT_EQ(bandwidth_cache_path().parent_path().parent_path(), test::scratch_dir());

  m.machine_key = "another-machine";  // a copied cache file from elsewhere is ignored
  std::filesystem::create_directories(bandwidth_cache_path().parent_path());
  std::ofstream(bandwidth_cache_path()) << to_json(m).dump();
  EXPECT_FALSE(load_cached_bandwidth().has_value());
}

// A figure of the first probe (best pass, timed by an unpinned main thread:
// 3-65x what likwid-bench measured) is never read back as this probe's.
TEST(BandwidthProbe, FiguresOfAnotherProbeVersionAreMeasuredAgain) {
  const ScopedCacheDir scoped(test::scratch_dir());
  EXPECT_NE(
      bandwidth_cache_path().filename().string().find(fmt::format("-v{}-", kBandwidthProbeVersion)),
      std::string::npos)
      << "the version is in the cache key";
  BandwidthMeasurement m;
  m.points = {{1, 20.5, 22.0, 9, 9}};
  m.gbps = 20.5;
  m.threads = 1;
  m.machine_key = machine_key();
  nlohmann::json old = to_json(m);
  old["probe_version"] = 1;
  std::filesystem::create_directories(bandwidth_cache_path().parent_path());
  std::ofstream(bandwidth_cache_path()) << old.dump();
  EXPECT_FALSE(load_cached_bandwidth().has_value());
  old.erase("probe_version");  // version 1 wrote none
  std::ofstream(bandwidth_cache_path()) << old.dump();
  EXPECT_FALSE(load_cached_bandwidth().has_value());
  EXPECT_THROW(bandwidth_from_json(old), UserError);
}

}  // namespace
}  // namespace moesweep
