#pragma once
// The cache a program really gets on this machine, measured rather than read
// from sysfs/hwloc (a VM's nominal 32 MiB L3 may serve only 2-4 MiB): load
// latency by a pointer chase (one pointer per 64-byte line, a fixed random
// cycle, huge pages where the kernel grants them) and read bandwidth, both
// against the working-set size, on one thread and on all threads (each
// thread its own share of the working set, as ggml splits an expert's rows).
// The knees of the curves give the usable last-level cache that `auto-l3`
// plans around. Cached per machine beside `hw --bandwidth`'s figure.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine_types.hpp"
#include "hw/cache_knees.hpp"

namespace moesweep {

struct CacheProbeOptions {
  uint64_t min_bytes = 16 << 10;
  uint64_t max_bytes = 0;  // 0: 8x the nominal L3, at least 256 MiB, at most RAM / 8
  int points_per_doubling = 3;
  int rounds = 7;             // each size measured this often; best kept (noise only slows)
  int threads = 0;            // the all-threads curve; 0: physical cores (1: no such curve)
  std::vector<int> cpus;      // pin order; empty: Topology::spread_cpus
  bool gemv = true;           // also the expert GEMV against pool size (the engine's kernel)
  double gemv_seconds = 0.3;  // per GEMV point and thread count
};

// The engine's expert GEMV (engine/worker/expert_gemv.hpp, timed in an engine worker) against its
// pool of experts: the kernel-level drop across the cache, and what the kernel reaches out of
// cache, which an engine-level working-set experiment must approach to be
// memory-bound (report/working_set.hpp).
struct GemvProbePoint {
  uint64_t pool_bytes = 0;
  double gbps = 0;      // expert bytes per second, 1 thread
  double gbps_all = 0;  // all threads (0: not measured)
};
// The probe's shape: Q8_0 (the chunked kernel, as the l3 twins), experts of
// 1024 x 256 (272 KiB), 4 used in each of 4 layers per token.
ExpertGemvShape gemv_probe_shape();

struct CacheProbePoint {
  uint64_t bytes = 0;         // the whole working set (split over the threads)
  double latency_ns = 0;      // one thread, ns per dependent load
  double latency_ns_all = 0;  // all threads, each chasing its share (0: not measured)
  double gbps = 0;            // one thread's read bandwidth
  double gbps_all = 0;        // all threads together
};

struct CacheCurveKnees {
  std::vector<CacheKnee> latency, latency_all, bandwidth, bandwidth_all;
};

struct CacheProbeResult {
  std::vector<CacheProbePoint> points;
  int threads = 1;  // of the all-threads curves
  CacheCurveKnees knees;
  uint64_t private_cache_bytes = 0;      // per-core L2 (sysfs), the floor for the LLC knee
  uint64_t nominal_l3_bytes = 0;         // hwloc's total L3
  uint64_t nominal_l3_domain_bytes = 0;  // hwloc's largest L3 domain
  uint64_t effective_l3_bytes = 0;       // usable LLC of one thread (latency knee); 0: none found
  uint64_t effective_l3_bytes_all = 0;   // the same with every thread chasing its share
  double huge_page_share = 0;            // of the largest buffer, backed by huge pages
  ExpertGemvShape gemv_shape;
  std::vector<GemvProbePoint> gemv;  // rising pool sizes; empty: not measured
  std::string machine_key, cpu_model, measured_at;
};

CacheProbeResult measure_cache(const CacheProbeOptions& options = {});
// The working-set sizes measured: min to max, `per_doubling` per factor 2,
// each a multiple of 64 bytes x threads.
std::vector<uint64_t> cache_probe_sizes(uint64_t min_bytes, uint64_t max_bytes, int per_doubling);
// Fills knees and the effective L3 sizes from the points (pure; tests use it).
void analyse_cache_curves(CacheProbeResult& r);

// In the cache file's name, so figures of another version are measured again:
// version 2 reads with the bandwidth probe's version-3 loop (no spills).
inline constexpr int kCacheProbeVersion = 2;
std::filesystem::path cache_probe_path();
// The stored result for this machine, if `moesweep hw --cache` ran here.
std::optional<CacheProbeResult> load_cached_cache_probe();
void save_cached_cache_probe(const CacheProbeResult& r);

nlohmann::json to_json(const CacheProbeResult& r);
// The kernel-level summary `l3-run` records: per thread count the GEMV's best
// in-cache and its out-of-cache speed, the drop between them and its knees.
nlohmann::json kernel_summary_json(const CacheProbeResult& r);
// UserError naming `origin` when a field is missing or of the wrong type.
CacheProbeResult cache_probe_from_json(const nlohmann::json& j, const std::string& origin);

}  // namespace moesweep
