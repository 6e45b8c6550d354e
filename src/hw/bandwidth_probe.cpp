#include "hw/bandwidth_probe.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "hw/build_info.hpp"
#include "hw/topology.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"
#include "util/utc_time.hpp"

namespace moesweep {

namespace {

using Clock = std::chrono::steady_clock;
using Half = uint64_t __attribute__((vector_size(32)));  // one AVX2 register

// 512 bytes a step through four independent accumulators, so the loads are not
// serialised and nothing spills: with eight 64-byte accumulators (version 2)
// GCC's AVX2 clone kept half of them on the stack, and the probe read 20% under
// likwid-bench's vector load kernel. Compiled three ways; the loader picks the
// widest the CPU has (our library is not built with -march=native, the engine
// is). Plain 4 KiB pages, as likwid-bench and the engine's mmap-ed weights use.
__attribute__((target_clones("avx512f", "avx2", "default"))) uint64_t read_lines(const Half* p,
                                                                                 size_t n) {
  Half a0{}, a1{}, a2{}, a3{};
  for (size_t i = 0; i + 16 <= n; i += 16) {
    a0 ^= p[i] ^ p[i + 4] ^ p[i + 8] ^ p[i + 12];
    a1 ^= p[i + 1] ^ p[i + 5] ^ p[i + 9] ^ p[i + 13];
    a2 ^= p[i + 2] ^ p[i + 6] ^ p[i + 10] ^ p[i + 14];
    a3 ^= p[i + 3] ^ p[i + 7] ^ p[i + 11] ^ p[i + 15];
  }
  const Half a = a0 ^ a1 ^ a2 ^ a3;
  return a[0] ^ a[1] ^ a[2] ^ a[3];
}

}  // namespace

struct PinnedReaders::State {
  std::vector<int> cpus;
  uint64_t bytes = 0;
  std::vector<std::thread> threads;
  std::vector<std::vector<int>> affinity;
  std::vector<std::string> errors;
  // Each reader's own stamps around its read, written before the finish
  // barrier and read by run_pass after it (the barrier orders them).
  std::vector<Clock::time_point> began, ended;
  std::barrier<> start, finish;
  std::atomic<int> active{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sink{0};  // keeps the reads from being optimised away

  State(std::vector<int> c, uint64_t b)
      : cpus(std::move(c)),
        bytes(b),
        affinity(cpus.size()),
        errors(cpus.size()),
        began(cpus.size()),
        ended(cpus.size()),
        start(static_cast<std::ptrdiff_t>(cpus.size() + 1)),
        finish(static_cast<std::ptrdiff_t>(cpus.size() + 1)) {}

  void shut_down() {
    stop.store(true);
    start.arrive_and_wait();
    for (auto& t : threads) t.join();
    threads.clear();
  }

  void worker(size_t index) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[index], &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
      errors[index] = fmt::format("cannot pin to CPU {}: {}", cpus[index], std::strerror(errno));
    affinity[index] = process_affinity();  // of this thread, after pinning
    void* raw = std::aligned_alloc(4096, bytes);
    if (!raw)
      errors[index] = fmt::format("cannot allocate {} bytes", bytes);
    else
      std::memset(raw, static_cast<int>(index + 1), bytes);  // first touch, on this node
    const auto* lines = static_cast<const Half*>(raw);
    finish.arrive_and_wait();  // ready
    for (;;) {
      start.arrive_and_wait();
      if (stop.load()) break;
      if (raw && static_cast<int>(index) < active.load()) {
        began[index] = Clock::now();
        const uint64_t v = read_lines(lines, bytes / sizeof(Half));
        ended[index] = Clock::now();
        sink.fetch_xor(v, std::memory_order_relaxed);
      }
      finish.arrive_and_wait();
    }
    std::free(raw);
  }
};

PinnedReaders::PinnedReaders(std::vector<int> cpus, uint64_t bytes_per_thread)
    : state_(std::make_unique<State>(std::move(cpus), bytes_per_thread / 512 * 512)) {
  for (size_t i = 0; i < state_->cpus.size(); ++i)
    state_->threads.emplace_back([this, i] { state_->worker(i); });
  state_->finish.arrive_and_wait();  // every worker pinned and its buffer touched
  for (const auto& e : state_->errors) {
    if (!e.empty()) {
      std::string what = e;
      state_->shut_down();
      throw UserError("bandwidth probe: " + what, "CPUs this process may run on and free memory",
                      "pass CPUs from `moesweep hw` (taskset/cgroups may restrict them)");
    }
  }
}

PinnedReaders::~PinnedReaders() {
  if (!state_->threads.empty()) state_->shut_down();
}

PinnedReaders::Pass PinnedReaders::run_pass(int active) {
  active = std::clamp(active, 1, size());
  state_->active.store(active);
  state_->start.arrive_and_wait();
  state_->finish.arrive_and_wait();
  const auto first = state_->began.begin(), last = first + active;
  const Clock::time_point first_start = *std::min_element(first, last);
  const Clock::time_point last_start = *std::max_element(first, last);
  const auto ends = state_->ended.begin();
  const Clock::time_point first_end = *std::min_element(ends, ends + active);
  const Clock::time_point last_end = *std::max_element(ends, ends + active);
  return {std::chrono::duration<double>(last_end - first_start).count(), last_start < first_end};
}

int PinnedReaders::size() const {
  return static_cast<int>(state_->cpus.size());
}
uint64_t PinnedReaders::bytes_per_thread() const {
  return state_->bytes;
}
std::vector<std::vector<int>> PinnedReaders::observed_affinity() const {
  return state_->affinity;
}

uint64_t stream_read(const void* p, uint64_t bytes) {
  return read_lines(static_cast<const Half*>(p), bytes / sizeof(Half));
}

namespace {

// Passes of `n` readers until the budget is spent (at least 5, for a median
// that one pass cannot make), after one warm-up pass (TLB, frequency ramp).
BandwidthPoint measure_thread_count(PinnedReaders& readers, int n, double budget) {
  readers.run_pass(n);
  const double bytes = static_cast<double>(readers.bytes_per_thread()) * n;
  std::vector<double> rates;
  BandwidthPoint p;
  p.threads = n;
  double spent = 0;
  while (rates.size() < 5 || (spent < budget && rates.size() < 1000)) {
    const PinnedReaders::Pass pass = readers.run_pass(n);
    spent += pass.seconds;
    const double gbps = bytes / pass.seconds / 1e9;
    rates.push_back(gbps);
    if (pass.overlapped) {
      ++p.overlapped_passes;
      p.peak_gbps = std::max(p.peak_gbps, gbps);
    }
  }
  std::sort(rates.begin(), rates.end());
  const size_t k = rates.size();
  p.gbps = k % 2 ? rates[k / 2] : (rates[k / 2 - 1] + rates[k / 2]) / 2;
  p.passes = static_cast<int>(k);
  return p;
}

}  // namespace

BandwidthMeasurement measure_bandwidth(const BandwidthProbeOptions& options) {
  const Topology topo = probe_topology();
  std::vector<int> cpus = options.cpus.empty() ? topo.spread_cpus : options.cpus;
  std::vector<int> counts = options.thread_counts;
  if (counts.empty())
    for (int n = 1; n <= static_cast<int>(cpus.size()); ++n) counts.push_back(n);
  const int max_threads = *std::max_element(counts.begin(), counts.end());
  if (max_threads > static_cast<int>(cpus.size()) ||
      *std::min_element(counts.begin(), counts.end()) < 1) {
    throw UserError(fmt::format("bandwidth probe: {} threads asked, {} CPUs to pin to", max_threads,
                                cpus.size()),
                    "thread counts from 1 to the number of CPUs", "lower --threads");
  }
  cpus.resize(max_threads);

  const uint64_t per_thread = options.bytes_per_thread > 0
                                  ? options.bytes_per_thread
                                  : default_bytes_per_thread(topo, max_threads);

  PinnedReaders readers(cpus, per_thread);
  BandwidthMeasurement m;
  m.bytes_per_thread = readers.bytes_per_thread();
  const double budget = options.seconds / static_cast<double>(counts.size());
  for (int n : counts) {
    BandwidthPoint p = measure_thread_count(readers, n, budget);
    if (p.gbps > m.gbps) m.gbps = p.gbps, m.threads = n;
    m.points.push_back(p);
  }
  m.machine_key = machine_key();
  m.cpu_model = cpu_info().model_name;
  m.measured_at = utc_now_iso8601();
  return m;
}

uint64_t default_bytes_per_thread(const Topology& topo, int threads) {
  uint64_t largest_l3 = 0;
  for (const auto& d : topo.l3_domains) largest_l3 = std::max(largest_l3, d.size_bytes);
  uint64_t total_cap = 16ull << 30;
  if (topo.memory_bytes > 0) total_cap = std::min(total_cap, topo.memory_bytes / 4);
  const uint64_t n = static_cast<uint64_t>(std::max(threads, 1));
  return std::min(std::max<uint64_t>(4 * largest_l3, 64ull << 20), total_cap / n);
}

std::string machine_key() {
  const CpuInfo cpu = cpu_info();
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  const uint64_t pages = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES));
  return fmt::format("{:016x}", fnv1a64(fmt::format("{}|{}|{}|{}", cpu.model_name, cpu.logical_cpus,
                                                    pages, host)));
}

std::filesystem::path bandwidth_cache_path() {
  return cache_dir() / "hw" /
         fmt::format("bandwidth-v{}-{}.json", kBandwidthProbeVersion, machine_key());
}

std::optional<BandwidthMeasurement> load_cached_bandwidth() {
  const auto path = bandwidth_cache_path();
  if (!std::filesystem::exists(path)) return std::nullopt;
  try {
    BandwidthMeasurement m = bandwidth_from_json(read_json_file(path, "bandwidth cache"));
    if (m.machine_key != machine_key() || m.gbps <= 0) return std::nullopt;
    return m;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache is the same as none: measure again
  }
}

void save_cached_bandwidth(const BandwidthMeasurement& m) {
  const auto path = bandwidth_cache_path();
  std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, to_json(m).dump(2) + "\n");
}

namespace {

const FieldRows<BandwidthPoint>& point_rows() {
  static const FieldRows<BandwidthPoint> rows = {
      {"threads", &BandwidthPoint::threads, 1, 1 << 16},
      {"gbps", &BandwidthPoint::gbps, 0, 1 << 20},
      {"peak_gbps", &BandwidthPoint::peak_gbps, 0, 1 << 20},
      {"passes", &BandwidthPoint::passes, 0, 1 << 20},
      {"overlapped_passes", &BandwidthPoint::overlapped_passes, 0, 1 << 20},
  };
  return rows;
}

const FieldRows<BandwidthMeasurement>& measurement_rows() {
  static const FieldRows<BandwidthMeasurement> rows = {
      {"machine_key", &BandwidthMeasurement::machine_key},
      {"cpu_model", &BandwidthMeasurement::cpu_model},
      {"measured_at", &BandwidthMeasurement::measured_at},
      {"bytes_per_thread", &BandwidthMeasurement::bytes_per_thread, 0, int64_t{1} << 40},
      {"gbps", &BandwidthMeasurement::gbps, 0, 1 << 20},
      {"threads", &BandwidthMeasurement::threads, 0, 1 << 16},
  };
  return rows;
}

}  // namespace

nlohmann::json to_json(const BandwidthMeasurement& m) {
  nlohmann::json j = {{"probe_version", kBandwidthProbeVersion},
                      {"method",
                       "pinned readers, one per core spread over L3 domains; each reader times "
                       "itself, a pass lasts from the first start to the last end; the figure is "
                       "the median pass"}};
  write_rows(m, measurement_rows(), j);
  j["points"] = nlohmann::json::array();
  for (const auto& p : m.points) {
    nlohmann::json row;
    write_rows(p, point_rows(), row);
    j["points"].push_back(row);
  }
  return j;
}

BandwidthMeasurement bandwidth_from_json(const nlohmann::json& j) {
  const JsonFields f(j, "bandwidth cache");
  if (f.integer("probe_version", 0, 1 << 20, 1) != kBandwidthProbeVersion)
    f.fail("probe_version", fmt::format("{} (this probe's method)", kBandwidthProbeVersion));
  BandwidthMeasurement m;
  read_rows(f, m, measurement_rows());
  for (const JsonFields& p : f.objects("points")) {
    BandwidthPoint point;
    read_rows(p, point, point_rows());
    m.points.push_back(point);
  }
  return m;
}

}  // namespace moesweep
