#include "engine/worker/expert_gemv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "engine/worker/llama_backend.hpp"
#include "engine/worker/llama_cpp/threadpool_api.hpp"
#include "engine/worker_protocol.hpp"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "util/error.hpp"

namespace moesweep::worker {
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

// The graph runs on the engine's CPU backend (loaded from the registry in a
// prebuilt engine), in a plain CPU buffer: ggml's chunked kernels, never the
// repacked layout.
struct ExpertGemv::State {
  ExpertGemvShape shape;
  ggml_type type = GGML_TYPE_COUNT;
  int64_t n_experts = 0;
  int n_threads = 0;
  ggml_context* ctx = nullptr;
  ggml_cgraph* graph = nullptr;
  std::vector<ggml_tensor*> ids;
  ggml_backend_t backend = nullptr;
  ggml_backend_buffer_t buffer = nullptr;
  ggml_threadpool_t pool = nullptr;
  std::mt19937 rng{42};

  ~State() {
    if (buffer) ggml_backend_buffer_free(buffer);
    if (backend) ggml_backend_free(backend);
    if (pool) threadpool_api().destroy(pool);
    if (ctx) ggml_free(ctx);
  }
  uint64_t expert_bytes() const { return ggml_row_size(type, shape.hidden) * shape.rows; }

  void build_graph() {
    const size_t tensors = 2 + 2 * static_cast<size_t>(shape.layers);
    ggml_init_params params{tensors * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr,
                            true};
    ctx = ggml_init(params);
    ggml_tensor* w = ggml_new_tensor_3d(ctx, type, shape.hidden, shape.rows, n_experts);
    ggml_tensor* x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, shape.hidden, 1, 1);
    graph = ggml_new_graph(ctx);
    for (int l = 0; l < shape.layers; ++l) {
      ggml_tensor* id = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, shape.used, 1);
      ids.push_back(id);
      ggml_build_forward_expand(graph, ggml_mul_mat_id(ctx, w, x, id));
    }
    buffer = ggml_backend_alloc_ctx_tensors_from_buft(ctx, cpu_buffer_type());
    if (!buffer)
      throw UserError(
          fmt::format("expert GEMV: cannot allocate {} bytes", expert_bytes() * n_experts),
          "free memory for the expert pool", "ask for fewer experts");
    fill(w, x);
  }

  // Quantize one expert and copy it everywhere: same bytes, distinct
  // addresses, which is all the cache sees; quantizing gigabytes would take
  // minutes. A CPU buffer is host memory, written in place.
  void fill(ggml_tensor* w, ggml_tensor* x) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> floats(static_cast<size_t>(shape.hidden * shape.rows));
    for (auto& f : floats) f = normal(rng);
    for (int64_t i = 0; i < shape.hidden; ++i) static_cast<float*>(x->data)[i] = normal(rng);
    ggml_quantize_chunk(type, floats.data(), w->data, 0, shape.rows, shape.hidden, nullptr);
    for (int64_t e = 1; e < n_experts; ++e)
      std::memcpy(static_cast<char*>(w->data) + e * expert_bytes(), w->data, expert_bytes());
  }

  void start_backend() {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    backend = dev ? ggml_backend_dev_init(dev, nullptr) : nullptr;
    if (!backend) throw EngineError("the engine's CPU backend did not start");
    ggml_threadpool_params tp = ggml_threadpool_params_default(n_threads);
    pool = threadpool_api().create(&tp);
    if (!pool) throw EngineError(fmt::format("no threadpool of {} threads", n_threads));
    threadpool_api().set_n_threads(backend, n_threads);
    threadpool_api().attach(backend, pool);
  }
};

ExpertGemv::ExpertGemv(const ExpertGemvShape& shape, int64_t experts, int threads)
    : s_(std::make_unique<State>()) {
  if (experts < shape.used || threads < 1 || shape.used < 1 || shape.layers < 1)
    throw UserError(
        fmt::format("expert GEMV: {} experts, {} used, {} threads", experts, shape.used, threads),
        "at least as many experts as used, at least 1 thread", "fix the pool");
  init_engine_backends();
  s_->shape = shape;
  s_->type = type_named(shape.type);
  s_->n_experts = experts;
  s_->n_threads = threads;
  s_->build_graph();
  s_->start_backend();
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
  if (ggml_backend_graph_compute(s_->backend, s_->graph) != GGML_STATUS_SUCCESS)
    throw EngineError("the expert GEMV graph failed on the CPU backend");
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

ExpertGemvPoint measure_expert_gemv(const ExpertGemvShape& shape, int64_t experts, int threads,
                                    double seconds) {
  using Clock = std::chrono::steady_clock;
  ExpertGemv g(shape, experts, threads);
  for (int i = 0; i < 3; ++i) g.route_next_token(), g.compute();  // warm: pages, threads
  ExpertGemvPoint p{g.pool_bytes(), g.expert_bytes(), threads, 0, 0};
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

nlohmann::json expert_gemv_reply(const nlohmann::json& req) {
  namespace wp = worker_protocol;
  const auto r = wp::decode<wp::ExpertGemvRequest>(req);
  const ExpertGemvPoint p =
      measure_expert_gemv(r.shape, r.experts, r.threads, static_cast<double>(r.millis) / 1e3);
  return wp::encode(wp::ExpertGemvReply{p});
}

}  // namespace moesweep::worker
