#include "hw/cache_probe.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <thread>

#include "engine/engine.hpp"
#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/topology.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"
#include "util/utc_time.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kLine = 64;
constexpr uint64_t kHugePage = 2ull << 20;

// A buffer aligned to and sized in 2 MiB pages, asking the kernel for
// transparent huge pages: a random walk over 4 KiB pages would time TLB
// misses, not the cache.
struct HugeBuffer {
  void* data = nullptr;
  uint64_t bytes = 0;
  explicit HugeBuffer(uint64_t want) : bytes(want) {
    const uint64_t rounded = (want + kHugePage - 1) / kHugePage * kHugePage;
    data = std::aligned_alloc(kHugePage, rounded);
    if (data) madvise(data, rounded, MADV_HUGEPAGE);
  }
  ~HugeBuffer() { std::free(data); }
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
};

// One pointer per 64-byte line, the lines in one random cycle (Sattolo's
// algorithm): every load depends on the one before and no prefetcher can
// guess the next line. A fixed seed: the same cycle on every run.
void build_cycle(HugeBuffer& b, uint64_t seed) {
  const uint64_t lines = b.bytes / kLine;
  std::vector<uint32_t> next(lines);
  std::iota(next.begin(), next.end(), 0u);
  std::mt19937_64 rng(seed);
  for (uint64_t i = lines - 1; i > 0; --i) std::swap(next[i], next[rng() % i]);
  auto* base = static_cast<char*>(b.data);
  for (uint64_t i = 0; i < lines; ++i)
    *reinterpret_cast<void**>(base + i * kLine) = base + uint64_t{next[i]} * kLine;
}

__attribute__((noinline)) void* chase(void* p, uint64_t steps) {
  for (uint64_t i = 0; i < steps; ++i) p = *static_cast<void**>(p);
  return p;
}

// Bytes of the mapping holding `p` that are backed by huge pages (/proc/self/smaps).
uint64_t huge_page_bytes(const void* p) {
  std::ifstream in("/proc/self/smaps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  for (int n = 0; n < 4'000'000 && std::getline(in, line); ++n) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < 17) {
      inside = lo <= addr && addr < hi;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::strtoull(line.c_str() + 14, nullptr, 10) * 1024;
    }
  }
  return 0;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof(set), &set);  // best effort: a refused pin only adds noise
}

struct ThreadFigures {
  double latency_ns = 0, gbps = 0;
  uint64_t huge_bytes = 0;  // thread 0's buffer
};

// `threads` workers pinned to `cpus`, each chasing and then streaming its own
// `share` bytes; the best of `rounds` (a disturbed pass is only ever slower).
ThreadFigures measure_on_threads(const std::vector<int>& cpus, int threads, uint64_t share,
                                 int rounds) {
  const uint64_t lines = share / kLine;
  // Short rounds, many of them: the best one is the one no other task
  // interrupted (a 2-vCPU VM shares its cores with every compile).
  const uint64_t steps = std::clamp<uint64_t>(lines, 1 << 16, 1 << 18);
  const uint64_t stream_bytes = std::max<uint64_t>(share, 16ull << 20);
  const uint64_t passes = std::max<uint64_t>(1, stream_bytes / share);
  std::barrier sync(threads);
  std::vector<std::vector<double>> chase_s(threads), stream_s(threads);
  std::atomic<uint64_t> sink{0};
  ThreadFigures out;
  auto worker = [&](int index) {
    pin_to(cpus[static_cast<size_t>(index)]);
    HugeBuffer buf(share);
    const bool ok = buf.data != nullptr;
    if (ok) build_cycle(buf, 0x5eed + static_cast<uint64_t>(index));
    if (ok && index == 0) out.huge_bytes = huge_page_bytes(buf.data);
    void* p = ok ? chase(buf.data, std::min<uint64_t>(lines, 1 << 20)) : nullptr;  // warm
    for (int r = 0; r < rounds; ++r) {
      sync.arrive_and_wait();
      auto t0 = Clock::now();
      if (ok) p = chase(p, steps);
      chase_s[index].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      sync.arrive_and_wait();
      t0 = Clock::now();
      for (uint64_t i = 0; ok && i < passes; ++i)
        sink.fetch_xor(stream_read(buf.data, share / 512 * 512), std::memory_order_relaxed);
      stream_s[index].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    sink.fetch_xor(reinterpret_cast<uintptr_t>(p), std::memory_order_relaxed);
    if (!ok) chase_s[index].assign(rounds, 0);  // reported below
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker, i);
  for (auto& t : pool) t.join();
  for (const auto& s : chase_s)
    if (std::find(s.begin(), s.end(), 0.0) != s.end())
      throw UserError(fmt::format("cache probe: cannot allocate {} bytes per thread", share),
                      "free memory for the largest working set", "lower --max-bytes");
  out.latency_ns = 1e30;
  for (int r = 0; r < rounds; ++r) {
    double mean_s = 0, slowest = 0;
    for (int i = 0; i < threads; ++i) {
      mean_s += chase_s[i][r] / threads;
      slowest = std::max(slowest, stream_s[i][r]);
    }
    out.latency_ns = std::min(out.latency_ns, mean_s / static_cast<double>(steps) * 1e9);
    out.gbps = std::max(out.gbps,
                        static_cast<double>(share / 512 * 512 * passes) * threads / slowest / 1e9);
  }
  return out;
}

// The per-core L2 from sysfs (the cache level below the shared one), else 1 MiB.
uint64_t private_cache_bytes() {
  for (int i = 0; i < 8; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    std::ifstream level(dir + "level"), size(dir + "size");
    int l = 0;
    std::string text;
    if (level >> l && l == 2 && size >> text) {
      const uint64_t n = std::strtoull(text.c_str(), nullptr, 10);
      const char unit = text.empty() ? ' ' : text.back();
      return n << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
    }
  }
  return 1ull << 20;
}

// The GEMV from the smallest pool (the experts one token uses) to `max_bytes`,
// two points per doubling.
std::vector<GemvProbePoint> gemv_curve(const ExpertGemvShape& shape, uint64_t max_bytes,
                                       int threads, double seconds) {
  std::vector<GemvProbePoint> out;
  ExpertGemvProbe probe;  // one engine worker times the whole curve
  uint64_t expert = 0;    // known after the first (smallest) pool
  int64_t last = 0;
  for (int i = 0;; ++i) {
    const auto n = static_cast<int64_t>(std::llround(shape.used * std::exp2(i / 2.0)));
    if (expert && static_cast<uint64_t>(n) * expert > max_bytes) break;
    if (n == last) continue;
    last = n;
    const ExpertGemvPoint one = probe.measure(shape, n, 1, seconds);
    expert = one.expert_bytes;
    if (one.pool_bytes > max_bytes && !out.empty()) break;
    GemvProbePoint p;
    p.pool_bytes = one.pool_bytes;
    p.gbps = one.gbps;
    if (threads > 1) p.gbps_all = probe.measure(shape, n, threads, seconds).gbps;
    out.push_back(p);
  }
  return out;
}

}  // namespace

ExpertGemvShape gemv_probe_shape() {
  ExpertGemvShape s;
  s.type = "q8_0";
  s.hidden = 1024;
  s.rows = 256;
  s.used = 4;
  s.layers = 4;
  return s;
}

std::vector<uint64_t> cache_probe_sizes(uint64_t min_bytes, uint64_t max_bytes, int per_doubling) {
  std::vector<uint64_t> out;
  const int steps_per = std::max(1, per_doubling);
  for (int i = 0;; ++i) {
    const double want =
        static_cast<double>(min_bytes) * std::exp2(static_cast<double>(i) / steps_per);
    if (want > static_cast<double>(max_bytes) * (1 + 1e-9)) break;
    const uint64_t bytes = static_cast<uint64_t>(want) / 4096 * 4096;  // whole pages
    if (bytes > 0 && (out.empty() || bytes > out.back())) out.push_back(bytes);
  }
  return out;
}

namespace {

// Each value replaced by the median of it and its neighbours: one point a
// preempted round spoiled is no cache level, while a real step (monotone)
// keeps every value.
std::vector<CurveSample> median_of_three(std::vector<CurveSample> c) {
  if (c.size() < 3) return c;
  const std::vector<CurveSample> raw = c;
  for (size_t i = 1; i + 1 < c.size(); ++i) {
    double v[3] = {raw[i - 1].value, raw[i].value, raw[i + 1].value};
    std::sort(v, v + 3);
    c[i].value = v[1];
  }
  return c;
}

}  // namespace

void analyse_cache_curves(CacheProbeResult& r) {
  std::vector<CurveSample> lat, lat_all, bw, bw_all;
  for (const CacheProbePoint& p : r.points) {
    lat.push_back({p.bytes, p.latency_ns});
    bw.push_back({p.bytes, p.gbps});
    if (p.latency_ns_all > 0) lat_all.push_back({p.bytes, p.latency_ns_all});
    if (p.gbps_all > 0) bw_all.push_back({p.bytes, p.gbps_all});
  }
  r.knees = {find_knees(median_of_three(lat), true), find_knees(median_of_three(lat_all), true),
             find_knees(median_of_three(bw), false), find_knees(median_of_three(bw_all), false)};
  r.effective_l3_bytes = usable_llc_bytes(r.knees.latency, r.private_cache_bytes);
  // With n threads each share must clear its own L2 before the shared cache shows.
  r.effective_l3_bytes_all = usable_llc_bytes(
      r.knees.latency_all, r.private_cache_bytes * static_cast<uint64_t>(std::max(1, r.threads)));
}

CacheProbeResult measure_cache(const CacheProbeOptions& o) {
  const Topology topo = probe_topology();
  CacheProbeResult r;
  r.nominal_l3_bytes = topo.l3_total_bytes();
  for (const L3Domain& d : topo.l3_domains)
    r.nominal_l3_domain_bytes = std::max(r.nominal_l3_domain_bytes, d.size_bytes);
  r.private_cache_bytes = private_cache_bytes();
  const std::vector<int> cpus = o.cpus.empty() ? topo.spread_cpus : o.cpus;
  r.threads = std::clamp(o.threads > 0 ? o.threads : topo.cores, 1, static_cast<int>(cpus.size()));
  uint64_t max_bytes = o.max_bytes;
  if (max_bytes == 0) max_bytes = std::max<uint64_t>(8 * r.nominal_l3_bytes, 256ull << 20);
  if (topo.memory_bytes > 0) max_bytes = std::min(max_bytes, topo.memory_bytes / 8);
  const std::vector<uint64_t> sizes =
      cache_probe_sizes(o.min_bytes, max_bytes, o.points_per_doubling);
  for (uint64_t bytes : sizes) {
    CacheProbePoint p;
    p.bytes = bytes;
    const ThreadFigures one = measure_on_threads(cpus, 1, bytes, o.rounds);
    p.latency_ns = one.latency_ns;
    p.gbps = one.gbps;
    if (bytes == sizes.back())
      r.huge_page_share = static_cast<double>(one.huge_bytes) / static_cast<double>(bytes);
    const uint64_t share = bytes / static_cast<uint64_t>(r.threads) / 4096 * 4096;
    if (r.threads > 1 && share >= 4096) {
      const ThreadFigures all = measure_on_threads(cpus, r.threads, share, o.rounds);
      p.latency_ns_all = all.latency_ns;
      p.gbps_all = all.gbps;
    }
    r.points.push_back(p);
  }
  analyse_cache_curves(r);
  r.gemv_shape = gemv_probe_shape();
  if (o.gemv) r.gemv = gemv_curve(r.gemv_shape, max_bytes, r.threads, o.gemv_seconds);
  r.machine_key = machine_key();
  r.cpu_model = cpu_info().model_name;
  r.measured_at = utc_now_iso8601();
  return r;
}

std::filesystem::path cache_probe_path() {
  return cache_dir() / "hw" / fmt::format("cache-v{}-{}.json", kCacheProbeVersion, machine_key());
}

std::optional<CacheProbeResult> load_cached_cache_probe() {
  const auto path = cache_probe_path();
  if (!std::filesystem::exists(path)) return std::nullopt;
  try {
    CacheProbeResult r =
        cache_probe_from_json(read_json_file(path, "cache probe"), "cache probe " + path.string());
    if (r.machine_key != machine_key()) return std::nullopt;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged file is the same as none: `hw --cache` measures again
  }
}

void save_cached_cache_probe(const CacheProbeResult& r) {
  const auto path = cache_probe_path();
  std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, to_json(r).dump(2) + "\n");
}

}  // namespace moesweep
