// DRAM read bandwidth by thread count: the measured ceiling for decode. Uses
// the same pinned readers as `moesweep hw --bandwidth`, so both agree.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "hw/bandwidth_probe.hpp"
#include "kernels_bench.hpp"

namespace moesweep::bench {

namespace {

// Allocated on first use and kept: touching gigabytes for every benchmark
// run would dominate the runtime.
PinnedReaders& readers_for(const Topology& topo) {
  static std::unique_ptr<PinnedReaders> readers;
  if (!readers) {
    const int threads = static_cast<int>(topo.spread_cpus.size());
    const uint64_t per_thread = default_bytes_per_thread(topo, threads);
    readers = std::make_unique<PinnedReaders>(topo.spread_cpus, per_thread);
  }
  return *readers;
}

}  // namespace

void register_memory_bandwidth(const Topology& topo) {
  const int max_threads = static_cast<int>(topo.spread_cpus.size());
  for (int n = 1; n <= max_threads; ++n) {
    benchmark::RegisterBenchmark(
        fmt::format("memory_read/threads:{}", n).c_str(),
        [&topo, n](benchmark::State& state) {
          PinnedReaders& readers = readers_for(topo);
          readers.run_pass(n);  // warm-up
          for (auto _ : state) state.SetIterationTime(readers.run_pass(n).seconds);
          const double bytes = static_cast<double>(readers.bytes_per_thread()) * n;
          state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
          state.counters["threads"] = n;
          state.counters["buffer_MiB"] = bytes / (1 << 20);
        })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace moesweep::bench
