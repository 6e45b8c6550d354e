#pragma once
// The measured ceiling for decode: how many bytes per second this machine's
// cores can stream from DRAM, by thread count, with threads pinned one per
// core and spread over the L3 domains. Cached per machine so every sweep
// record can carry a roofline without re-measuring.
//
// Each reader stamps its own start and end, and a pass lasts from the first
// start to the last end: a coordinating thread that is descheduled cannot make
// a pass look short (the first probe stamped the start on an unpinned main
// thread and once read 2,225 GB/s where likwid-bench measures 35). The figure
// per thread count is the MEDIAN pass: one lucky or unlucky pass cannot make
// it. The best pass is kept beside it, counted only among passes whose readers
// all ran at once (STREAM's intent), and only as a second column.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hw/topology.hpp"

namespace moesweep {

// Worker threads pinned one to each given CPU, each owning a buffer it
// touched itself (first touch puts the pages on its NUMA node). A pass makes
// the first `active` workers read their whole buffer once.
class PinnedReaders {
 public:
  PinnedReaders(std::vector<int> cpus, uint64_t bytes_per_thread);
  ~PinnedReaders();
  PinnedReaders(const PinnedReaders&) = delete;
  PinnedReaders& operator=(const PinnedReaders&) = delete;

  struct Pass {
    double seconds = 0;       // first reader's start to the last reader's end
    bool overlapped = false;  // every active reader started before any ended
  };
  // The first `active` readers each read their whole buffer once.
  Pass run_pass(int active);
  int size() const;
  uint64_t bytes_per_thread() const;
  // What sched_getaffinity reported inside each worker after pinning.
  std::vector<std::vector<int>> observed_affinity() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct BandwidthProbeOptions {
  std::vector<int> thread_counts;  // empty: 1..physical cores
  std::vector<int> cpus;           // pin order; empty: Topology::spread_cpus
  double seconds = 3.0;            // whole probe, all thread counts together
  uint64_t bytes_per_thread = 0;   // 0: 4x the largest L3 domain, at least 64 MiB
};

// Bumped whenever the probe's method changes what its figure means: cached
// figures of another version are measured again (version 1 took the best pass,
// timed by the main thread; version 2's read loop spilled registers and read
// 20% slow).
inline constexpr int kBandwidthProbeVersion = 3;

struct BandwidthPoint {
  int threads = 0;
  double gbps = 0;       // 1e9 bytes per second: the median pass
  double peak_gbps = 0;  // best pass among those whose readers all overlapped (0: none did)
  int passes = 0;
  int overlapped_passes = 0;
};

struct BandwidthMeasurement {
  std::vector<BandwidthPoint> points;
  double gbps = 0;  // the highest per-thread-count median: the roofline's figure
  int threads = 0;  // the thread count that gave it
  uint64_t bytes_per_thread = 0;
  std::string machine_key;  // which machine the figure belongs to
  std::string cpu_model;
  std::string measured_at;  // UTC, ISO 8601
};

BandwidthMeasurement measure_bandwidth(const BandwidthProbeOptions& options = {});
// Reads `bytes` (a multiple of 512) from `p` with vector loads, as
// the probe does; returns a value that depends on every byte read.
uint64_t stream_read(const void* p, uint64_t bytes);
// Buffer per thread that measures DRAM, not cache: 4x the largest L3 domain,
// at least 64 MiB, all threads together at most a quarter of RAM and 16 GiB.
uint64_t default_bytes_per_thread(const Topology& topo, int threads);

// Identifies this machine (CPU model, CPU count, memory size, host name).
std::string machine_key();
// Per machine and per probe version (kBandwidthProbeVersion).
std::filesystem::path bandwidth_cache_path();
// The cached figure for this machine, if `moesweep hw --bandwidth` ran here.
std::optional<BandwidthMeasurement> load_cached_bandwidth();
void save_cached_bandwidth(const BandwidthMeasurement& m);

nlohmann::json to_json(const BandwidthMeasurement& m);
BandwidthMeasurement bandwidth_from_json(const nlohmann::json& j);

}  // namespace moesweep
