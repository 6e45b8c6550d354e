// The L3 hypothesis in miniature: the engine's own quantized expert GEMV
// (ggml_mul_mat_id on the CPU backend) while the set of experts a token can
// route to grows from far below the L3 to far above it. Each token picks 8
// random experts per layer, like a router; when the whole pool fits in L3
// the weights come from cache, past it they come from DRAM.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "ggml-cpu.h"
#include "ggml.h"
#include "kernels_bench.hpp"

namespace moesweep::bench {

namespace {

constexpr int64_t kHidden = 2048;     // GEMV input width (a small model's hidden size)
constexpr int64_t kExpertRows = 512;  // expert FFN width: one expert = 1M weights
constexpr int kUsed = 8;              // experts per token per layer, as in Kimi/DeepSeek
constexpr int kLayers = 4;            // mul_mat_id nodes per graph, amortising graph launch

struct ExpertPool {
  ggml_type type = GGML_TYPE_COUNT;
  int64_t n_experts = 0;
  int n_threads = 0;
  ggml_context* ctx = nullptr;
  ggml_cgraph* graph = nullptr;
  std::vector<ggml_tensor*> ids;
  ggml_threadpool* pool = nullptr;
  std::vector<uint8_t> work;
  ggml_cplan plan{};
  std::mt19937 rng{42};

  ~ExpertPool() {
    if (pool) ggml_threadpool_free(pool);
    if (ctx) ggml_free(ctx);
  }
  uint64_t expert_bytes() const { return ggml_row_size(type, kHidden) * kExpertRows; }

  void build(ggml_type t, int64_t experts, int threads) {
    type = t;
    n_experts = experts;
    n_threads = threads;
    const size_t weights = expert_bytes() * static_cast<size_t>(experts);
    ggml_init_params params{weights + (64ull << 20), nullptr, false};
    ctx = ggml_init(params);
    ggml_tensor* w = ggml_new_tensor_3d(ctx, type, kHidden, kExpertRows, experts);
    ggml_tensor* x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, kHidden, 1, 1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> floats(kHidden * kExpertRows);
    for (auto& f : floats) f = normal(rng);
    for (int64_t i = 0; i < kHidden; ++i) static_cast<float*>(x->data)[i] = normal(rng);
    // Quantize one expert and copy it everywhere: same bytes, distinct addresses,
    // which is all the cache sees; quantizing gigabytes would take minutes.
    ggml_quantize_chunk(type, floats.data(), w->data, 0, kExpertRows, kHidden, nullptr);
    for (int64_t e = 1; e < experts; ++e)
      std::memcpy(static_cast<char*>(w->data) + e * expert_bytes(), w->data, expert_bytes());
    graph = ggml_new_graph(ctx);
    for (int l = 0; l < kLayers; ++l) {
      ggml_tensor* id = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, kUsed, 1);
      ids.push_back(id);
      ggml_build_forward_expand(graph, ggml_mul_mat_id(ctx, w, x, id));
    }
    ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
    pool = ggml_threadpool_new(&tp);
    plan = ggml_graph_plan(graph, threads, pool);
    work.resize(plan.work_size);
    plan.work_data = work.data();
  }

  void route_next_token() {
    std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(n_experts - 1));
    for (ggml_tensor* id : ids) {
      auto* slots = static_cast<int32_t*>(id->data);
      for (int k = 0; k < kUsed; ++k) {
        int32_t e;
        do e = pick(rng);
        while (std::find(slots, slots + k, e) != slots + k);
        slots[k] = e;
      }
    }
  }
};

// One pool alive at a time, rebuilt only when the benchmark changes, since
// Google Benchmark calls each function more than once.
ExpertPool& pool_for(ggml_type type, int64_t experts, int threads) {
  static std::unique_ptr<ExpertPool> pool;
  if (!pool || pool->type != type || pool->n_experts != experts || pool->n_threads != threads) {
    pool.reset();
    pool = std::make_unique<ExpertPool>();
    pool->build(type, experts, threads);
  }
  return *pool;
}

}  // namespace

void register_expert_working_set(const Topology& topo, int threads_asked) {
  const int threads = threads_asked > 0 ? threads_asked : std::max(1, topo.cores);
  const double l3 = static_cast<double>(topo.l3_total_bytes());
  for (ggml_type type : {GGML_TYPE_Q4_K, GGML_TYPE_Q6_K, GGML_TYPE_Q8_0}) {
    for (int64_t experts = kUsed; experts <= 4096; experts *= 2) {
      const std::string name =
          fmt::format("expert_gemv/{}/experts:{}", ggml_type_name(type), experts);
      benchmark::RegisterBenchmark(
          name.c_str(),
          [=](benchmark::State& state) {
            ExpertPool& pool = pool_for(type, experts, threads);
            pool.route_next_token();
            ggml_graph_compute(pool.graph, &pool.plan);  // warm-up
            for (auto _ : state) {
              pool.route_next_token();
              ggml_graph_compute(pool.graph, &pool.plan);
            }
            const double per_token = static_cast<double>(pool.expert_bytes()) * kUsed * kLayers;
            const double working_set = static_cast<double>(pool.expert_bytes()) * experts;
            state.SetBytesProcessed(static_cast<int64_t>(per_token * state.iterations()));
            state.SetItemsProcessed(state.iterations());  // tokens
            state.counters["working_set_MiB"] = working_set / (1 << 20);
            state.counters["working_set_over_L3"] = l3 > 0 ? working_set / l3 : 0;
            state.counters["expert_KiB"] = static_cast<double>(pool.expert_bytes()) / 1024;
            state.counters["threads"] = threads;
          })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
}

}  // namespace moesweep::bench
