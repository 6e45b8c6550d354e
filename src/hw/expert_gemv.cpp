#include "hw/expert_gemv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>

#include "ggml-cpu.h"
#include "ggml.h"
#include "util/error.hpp"

namespace moesweep {
namespace {

ggml_type type_named(const std::string& name) {
  for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
    const char* n = ggml_type_name(static_cast<ggml_type>(t));
    if (n && name == n) return static_cast<ggml_type>(t);
  }
  throw UserError(fmt::format("expert GEMV: unknown ggml type '{}'", name),
                  "a ggml type name such as q8_0, q4_K, q6_K", "fix the type");
}

}  // namespace

struct ExpertGemv::State {
  ExpertGemvShape shape;
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

  ~State() {
    if (pool) ggml_threadpool_free(pool);
    if (ctx) ggml_free(ctx);
  }
  uint64_t expert_bytes() const { return ggml_row_size(type, shape.hidden) * shape.rows; }

  void build() {
    const size_t weights = expert_bytes() * static_cast<size_t>(n_experts);
    ggml_init_params params{weights + (64ull << 20), nullptr, false};
    ctx = ggml_init(params);
    if (!ctx)
      throw UserError(fmt::format("expert GEMV: cannot allocate {} bytes", weights),
                      "free memory for the expert pool", "ask for fewer experts");
    ggml_tensor* w = ggml_new_tensor_3d(ctx, type, shape.hidden, shape.rows, n_experts);
    ggml_tensor* x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, shape.hidden, 1, 1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> floats(static_cast<size_t>(shape.hidden * shape.rows));
    for (auto& f : floats) f = normal(rng);
    for (int64_t i = 0; i < shape.hidden; ++i) static_cast<float*>(x->data)[i] = normal(rng);
    // Quantize one expert and copy it everywhere: same bytes, distinct addresses,
    // which is all the cache sees; quantizing gigabytes would take minutes.
    ggml_quantize_chunk(type, floats.data(), w->data, 0, shape.rows, shape.hidden, nullptr);
    for (int64_t e = 1; e < n_experts; ++e)
      std::memcpy(static_cast<char*>(w->data) + e * expert_bytes(), w->data, expert_bytes());
    graph = ggml_new_graph(ctx);
    for (int l = 0; l < shape.layers; ++l) {
      ggml_tensor* id = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, shape.used, 1);
      ids.push_back(id);
      ggml_build_forward_expand(graph, ggml_mul_mat_id(ctx, w, x, id));
    }
    ggml_threadpool_params tp = ggml_threadpool_params_default(n_threads);
    pool = ggml_threadpool_new(&tp);
    plan = ggml_graph_plan(graph, n_threads, pool);
    work.resize(plan.work_size);
    plan.work_data = work.data();
  }
};

ExpertGemv::ExpertGemv(const ExpertGemvShape& shape, int64_t experts, int threads)
    : s_(std::make_unique<State>()) {
  if (experts < shape.used || threads < 1)
    throw UserError(
        fmt::format("expert GEMV: {} experts, {} used, {} threads", experts, shape.used, threads),
        "at least as many experts as used, at least 1 thread", "fix the pool");
  s_->shape = shape;
  s_->type = type_named(shape.type);
  s_->n_experts = experts;
  s_->n_threads = threads;
  s_->build();
  route_next_token();
}

ExpertGemv::~ExpertGemv() = default;

void ExpertGemv::route_next_token() {
  std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(s_->n_experts - 1));
  for (ggml_tensor* id : s_->ids) {
    auto* slots = static_cast<int32_t*>(id->data);
    for (int k = 0; k < s_->shape.used; ++k) {
      int32_t e;
      do e = pick(s_->rng);
      while (std::find(slots, slots + k, e) != slots + k);
      slots[k] = e;
    }
  }
}

void ExpertGemv::compute() {
  ggml_graph_compute(s_->graph, &s_->plan);
}

uint64_t ExpertGemv::expert_bytes() const {
  return s_->expert_bytes();
}
uint64_t ExpertGemv::bytes_per_token() const {
  return expert_bytes() * static_cast<uint64_t>(s_->shape.used * s_->shape.layers);
}
uint64_t ExpertGemv::pool_bytes() const {
  return expert_bytes() * static_cast<uint64_t>(s_->n_experts);
}
int64_t ExpertGemv::experts() const {
  return s_->n_experts;
}
int ExpertGemv::threads() const {
  return s_->n_threads;
}
const ExpertGemvShape& ExpertGemv::shape() const {
  return s_->shape;
}

ExpertGemvPoint measure_expert_gemv(const ExpertGemvShape& shape, int64_t experts, int threads,
                                    double seconds) {
  using Clock = std::chrono::steady_clock;
  ExpertGemv g(shape, experts, threads);
  for (int i = 0; i < 3; ++i) g.route_next_token(), g.compute();  // warm: pages, threads
  ExpertGemvPoint p{g.pool_bytes(), threads, 0, 0};
  for (int pass = 0; pass < 3; ++pass) {
    int tokens = 0;
    const auto t0 = Clock::now();
    double spent = 0;
    while (tokens < 8 || spent < seconds / 3) {
      g.route_next_token();
      g.compute();
      ++tokens;
      spent = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    p.tokens_per_s = std::max(p.tokens_per_s, tokens / spent);
  }
  p.gbps = p.tokens_per_s * static_cast<double>(g.bytes_per_token()) / 1e9;
  return p;
}

}  // namespace moesweep
