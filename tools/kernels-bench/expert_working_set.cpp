// The L3 hypothesis in miniature: the engine's own quantized expert GEMV
// (ggml_mul_mat_id on the CPU backend, engine/worker/expert_gemv.hpp) while the set of
// experts a token can route to grows from far below the L3 to far above it.
// Each token picks 8 random experts per layer, like a router; when the whole
// pool fits in L3 the weights come from cache, past it they come from DRAM.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "engine/worker/expert_gemv.hpp"
#include "hw/cache_probe.hpp"
#include "kernels_bench.hpp"

namespace moesweep::bench {

namespace {

// One pool alive at a time, rebuilt only when the benchmark changes, since
// Google Benchmark calls each function more than once.
using worker::ExpertGemv;

ExpertGemv& pool_for(const std::string& type, int64_t experts, int threads) {
  static std::unique_ptr<ExpertGemv> pool;
  static std::string key;
  const std::string wanted = fmt::format("{}/{}/{}", type, experts, threads);
  if (!pool || key != wanted) {
    pool.reset();
    ExpertGemvShape shape;
    shape.type = type;
    pool = std::make_unique<ExpertGemv>(shape, experts, threads);
    key = wanted;
  }
  return *pool;
}

}  // namespace

void register_expert_working_set(const Topology& topo, int threads_asked) {
  const int threads = threads_asked > 0 ? threads_asked : std::max(1, topo.cores);
  const double l3 = static_cast<double>(topo.l3_total_bytes());
  const auto probe = load_cached_cache_probe();  // `moesweep hw --cache`: the usable L3
  const double usable = probe ? static_cast<double>(probe->effective_l3_bytes) : 0;
  for (const char* type : {"q4_K", "q6_K", "q8_0"}) {
    for (int64_t experts = ExpertGemvShape{}.used; experts <= 4096; experts *= 2) {
      const std::string name = fmt::format("expert_gemv/{}/experts:{}", type, experts);
      benchmark::RegisterBenchmark(
          name.c_str(),
          [=](benchmark::State& state) {
            ExpertGemv& pool = pool_for(type, experts, threads);
            pool.route_next_token();
            pool.compute();  // warm-up
            for (auto _ : state) {
              pool.route_next_token();
              pool.compute();
            }
            const double working_set = static_cast<double>(pool.pool_bytes());
            state.SetBytesProcessed(
                static_cast<int64_t>(pool.bytes_per_token() * state.iterations()));
            state.SetItemsProcessed(state.iterations());  // tokens
            state.counters["working_set_MiB"] = working_set / (1 << 20);
            state.counters["working_set_over_L3"] = l3 > 0 ? working_set / l3 : 0;
            state.counters["working_set_over_usable_L3"] = usable > 0 ? working_set / usable : 0;
            state.counters["expert_KiB"] = static_cast<double>(pool.expert_bytes()) / 1024;
            state.counters["threads"] = threads;
          })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
}

}  // namespace moesweep::bench
