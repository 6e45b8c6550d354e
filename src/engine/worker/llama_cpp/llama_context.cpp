#include <fmt/format.h>

#include <chrono>

#include "engine/context_rules.hpp"
#include "engine/engine_util.hpp"
#include "engine/worker/llama_backend.hpp"
#include "engine/worker/llama_model.hpp"
#include "engine/worker/routing_tap.hpp"
#include "ggml-cpu.h"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The engine's own names for tensor types (-ctk/-ctv), checked by the spec.
ggml_type parse_ggml_type(const std::string& name, const std::string& flag) {
  for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
    const char* n = ggml_type_name(static_cast<ggml_type>(t));
    if (n && name == n) return static_cast<ggml_type>(t);
  }
  throw UserError(fmt::format("{}: unknown tensor type '{}'", flag, name),
                  "f16, bf16, q8_0, q4_0, ...", fmt::format("fix {}", flag));
}

}  // namespace

Context::Context(const Model& model, const ContextParams& p, RoutingObserver* routing)
    : model_(model), params_(p), routing_(routing) {
  // The plan leaves out contexts that break a rule; this guards other callers.
  if (const std::string why = context_rule_violation(p); !why.empty()) throw EngineError(why);
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = static_cast<uint32_t>(p.n_ctx);
  cp.n_batch = static_cast<uint32_t>(p.n_batch);
  cp.n_ubatch = static_cast<uint32_t>(p.n_ubatch);
  cp.n_seq_max = 1;
  cp.type_k = parse_ggml_type(p.type_k, "-ctk");
  cp.type_v = parse_ggml_type(p.type_v, "-ctv");
  cp.flash_attn_type = static_cast<llama_flash_attn_type>(p.flash_attn);  // same numbering
  cp.no_perf = true;
  if (routing_) {
    cp.cb_eval = &routing_eval_callback;
    cp.cb_eval_user_data = routing_;
  }
  ctx_ = llama_init_from_model(model.get(), cp);
  if (!ctx_) {
    throw EngineError(fmt::format(
        "the engine could not create a context (n_ctx {}, batch {}/{}, K {} V {}, fa {}); "
        "MOESWEEP_ENGINE_LOG=info shows its reason",
        p.n_ctx, p.n_batch, p.n_ubatch, p.type_k, p.type_v,
        llama_flash_attn_type_name(cp.flash_attn_type)));
  }
}

Context::~Context() {
  if (ctx_) {
    llama_detach_threadpool(ctx_);
    llama_free(ctx_);
  }
  if (pool_batch_ && pool_batch_ != pool_) threadpool_api().destroy(pool_batch_);
  if (pool_) threadpool_api().destroy(pool_);
}

void Context::set_threads(const ThreadSettings& t) {
  auto make_pool = [&](int n) {
    ggml_threadpool_params tpp = ggml_threadpool_params_default(n);
    tpp.strict_cpu = t.strict;
    tpp.poll = static_cast<uint32_t>(t.poll);
    if (!t.cpu_mask.empty()) {
      std::vector<bool> mask;
      if (!parse_cpu_mask(t.cpu_mask, mask)) {
        throw UserError(fmt::format("--cpu-mask '{}' is not a CPU mask", t.cpu_mask),
                        "hex like 0xffff or a list like 0-15,32", "fix --cpu-mask");
      }
      for (size_t i = 0; i < mask.size() && i < GGML_MAX_N_THREADS; ++i) tpp.cpumask[i] = mask[i];
    }
    ggml_threadpool* pool = threadpool_api().create(&tpp);
    if (!pool)
      throw EngineError(fmt::format("the engine could not start a threadpool of {} threads", n));
    return pool;
  };
  llama_detach_threadpool(ctx_);
  if (pool_batch_ && pool_batch_ != pool_) threadpool_api().destroy(pool_batch_);
  if (pool_) threadpool_api().destroy(pool_);
  pool_ = pool_batch_ = nullptr;
  pool_ = make_pool(t.n_threads);
  pool_batch_ = t.n_threads_batch == t.n_threads ? pool_ : make_pool(t.n_threads_batch);
  llama_attach_threadpool(ctx_, pool_, pool_batch_);
  llama_set_n_threads(ctx_, t.n_threads, t.n_threads_batch);
}

// A planted regression for testing the A/B gate (scripts/regress --base): a
// worker built with -DMOESWEEP_PLANTED_TG_DELAY_US=N (`engine add ...
// --cmake-flag -DMOESWEEP_PLANTED_TG_DELAY_US=N`) spins N microseconds after
// every generated token, inside the timed region. Never set otherwise.
void Context::spin_planted_delay() {
#ifdef MOESWEEP_PLANTED_TG_DELAY_US
  const auto until = Clock::now() + std::chrono::microseconds(MOESWEEP_PLANTED_TG_DELAY_US);
  while (Clock::now() < until) {
  }
#endif
}

void Context::decode_or_throw(void* batch_ptr, const char* what) {
  const int32_t rc = llama_decode(ctx_, *static_cast<llama_batch*>(batch_ptr));
  if (rc != 0) {
    throw EngineError(fmt::format("llama_decode failed during {} (code {}{})", what, rc,
                                  rc == 1 ? ": no KV cache slot; the context is full" : ""));
  }
}

double Context::decode(const std::vector<int32_t>& tokens, int pos0, int chunk_tokens) {
  const size_t chunk = static_cast<size_t>(std::max(1, chunk_tokens));
  const char* what = chunk == 1 ? "generation" : "prefill";
  // Sized for what is decoded, not for -b: a batch of -b slots would
  // allocate for tokens that never come (and -b is not capped at the context).
  struct BatchOwner {
    llama_batch batch;
    ~BatchOwner() { llama_batch_free(batch); }
  } owner{llama_batch_init(
      static_cast<int32_t>(std::max<size_t>(1, std::min(chunk, tokens.size()))), 0, 1)};
  llama_batch& batch = owner.batch;
  const auto t0 = Clock::now();
  for (size_t first = 0; first < tokens.size(); first += chunk) {
    const size_t n = std::min(tokens.size() - first, chunk);
    batch.n_tokens = static_cast<int32_t>(n);
    for (size_t i = 0; i < n; ++i) {
      batch.token[i] = tokens[first + i];
      batch.pos[i] = pos0 + static_cast<int>(first + i);
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = 0;
      // generation wants logits for every token; prefill only for the last
      batch.logits[i] = chunk == 1 || first + i + 1 == tokens.size();
    }
    if (routing_) routing_->on_decode(static_cast<int>(n), chunk == 1);
    decode_or_throw(&batch, what);
    llama_synchronize(ctx_);
    if (chunk == 1) spin_planted_delay();
  }
  return seconds_since(t0);
}

void Context::rewind_to(int n_kv) {
  if (!llama_memory_seq_rm(llama_get_memory(ctx_), 0, n_kv, -1)) {
    throw EngineError(fmt::format("the KV cache of this model cannot rewind to {} tokens", n_kv));
  }
}

int Context::cached_tokens() const {
  return llama_memory_seq_pos_max(llama_get_memory(ctx_), 0) + 1;
}

int Context::n_ctx() const {
  return static_cast<int>(llama_n_ctx(ctx_));
}

}  // namespace moesweep::worker
