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
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {

namespace {

using Clock = std::chrono::steady_clock;
using Line = uint64_t __attribute__((vector_size(64)));

// One 64-byte line per step, eight independent accumulators so the loads are
// not serialised. Compiled three ways; the loader picks the widest the CPU has
// (our library is not built with -march=native, the engine is).
__attribute__((target_clones("avx512f", "avx2", "default"))) uint64_t read_lines(const Line* p,
                                                                                 size_t n) {
  Line a0{}, a1{}, a2{}, a3{}, a4{}, a5{}, a6{}, a7{};
  for (size_t i = 0; i + 8 <= n; i += 8) {
    a0 ^= p[i];
    a1 ^= p[i + 1];
    a2 ^= p[i + 2];
    a3 ^= p[i + 3];
    a4 ^= p[i + 4];
    a5 ^= p[i + 5];
    a6 ^= p[i + 6];
    a7 ^= p[i + 7];
  }
  Line a = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
  return a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5] ^ a[6] ^ a[7];
}

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

}  // namespace

struct PinnedReaders::State {
  std::vector<int> cpus;
  uint64_t bytes = 0;
  std::vector<std::thread> threads;
  std::vector<std::vector<int>> affinity;
  std::vector<std::string> errors;
  std::barrier<> start, finish;
  std::atomic<int> active{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sink{0};  // keeps the reads from being optimised away

  State(std::vector<int> c, uint64_t b)
      : cpus(std::move(c)),
        bytes(b),
        affinity(cpus.size()),
        errors(cpus.size()),
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
    const auto* lines = static_cast<const Line*>(raw);
    finish.arrive_and_wait();  // ready
    for (;;) {
      start.arrive_and_wait();
      if (stop.load()) break;
      if (raw && static_cast<int>(index) < active.load())
        sink.fetch_xor(read_lines(lines, bytes / sizeof(Line)), std::memory_order_relaxed);
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

double PinnedReaders::run_pass(int active) {
  state_->active.store(active);
  state_->start.arrive_and_wait();
  const auto t0 = Clock::now();
  state_->finish.arrive_and_wait();
  return std::chrono::duration<double>(Clock::now() - t0).count();
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
  return read_lines(static_cast<const Line*>(p), bytes / sizeof(Line));
}

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
    readers.run_pass(n);  // warm-up: TLB, frequency ramp
    std::vector<double> rates;
    double spent = 0;
    while (rates.size() < 3 || (spent < budget && rates.size() < 1000)) {
      const double s = readers.run_pass(n);
      spent += s;
      rates.push_back(static_cast<double>(m.bytes_per_thread) * n / s / 1e9);
    }
    std::sort(rates.begin(), rates.end());
    const double best = rates.back();
    const double median = rates[rates.size() / 2];
    m.points.push_back({n, best, median});
    if (best > m.best_gbps) {
      m.best_gbps = best;
      m.best_threads = n;
    }
  }
  m.machine_key = machine_key();
  m.cpu_model = cpu_info().model_name;
  m.measured_at = utc_now();
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
  return cache_dir() / "hw" / fmt::format("bandwidth-{}.json", machine_key());
}

std::optional<BandwidthMeasurement> load_cached_bandwidth() {
  const auto path = bandwidth_cache_path();
  if (!std::filesystem::exists(path)) return std::nullopt;
  try {
    BandwidthMeasurement m = bandwidth_from_json(read_json_file(path, "bandwidth cache"));
    if (m.machine_key != machine_key() || m.best_gbps <= 0) return std::nullopt;
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

nlohmann::json to_json(const BandwidthMeasurement& m) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : m.points)
    points.push_back({{"threads", p.threads}, {"gbps", p.gbps}, {"median_gbps", p.median_gbps}});
  return {{"machine_key", m.machine_key},
          {"cpu_model", m.cpu_model},
          {"measured_at", m.measured_at},
          {"bytes_per_thread", m.bytes_per_thread},
          {"best_gbps", m.best_gbps},
          {"best_threads", m.best_threads},
          {"method", "pinned read, one thread per core spread over L3 domains, best pass"},
          {"points", points}};
}

BandwidthMeasurement bandwidth_from_json(const nlohmann::json& j) {
  BandwidthMeasurement m;
  m.machine_key = j.value("machine_key", "");
  m.cpu_model = j.value("cpu_model", "");
  m.measured_at = j.value("measured_at", "");
  m.bytes_per_thread = j.value("bytes_per_thread", uint64_t{0});
  m.best_gbps = j.value("best_gbps", 0.0);
  m.best_threads = j.value("best_threads", 0);
  for (const auto& p : j.value("points", nlohmann::json::array()))
    m.points.push_back({p.value("threads", 0), p.value("gbps", 0.0), p.value("median_gbps", 0.0)});
  return m;
}

}  // namespace moesweep
