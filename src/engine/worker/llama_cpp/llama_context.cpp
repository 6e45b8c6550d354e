#include <fmt/format.h>

#include "engine/context_rules.hpp"
#include "engine/engine_util.hpp"
#include "engine/worker/context_fill.hpp"
#include "engine/worker/llama_backend.hpp"
#include "engine/worker/llama_cpp/llama_api.hpp"
#include "engine/worker/llama_cpp/threadpool_api.hpp"
#include "engine/worker/llama_model.hpp"
#include "engine/worker/routing_tap.hpp"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {

Context::Context(const Model& model, const ContextParams& p, RoutingObserver* routing)
    : model_(model), params_(p), routing_(routing) {
  refuse_knobs(p.knobs);
  // The plan leaves out contexts that break a rule; this guards other callers.
  if (const std::string why = context_rule_violation(p); !why.empty()) throw EngineError(why);
  llama_context_params cp = llama_context_default_params();
  fill_context_sizes(cp, p);
  api::set_flash_attn(cp, p.flash_attn);
  cp.no_perf = true;
  if (routing_) {
    cp.cb_eval = &routing_eval_callback;
    cp.cb_eval_user_data = routing_;
  }
  ctx_ = api::new_context(model.get(), cp);
  if (!ctx_) {
    throw EngineError(fmt::format(
        "the engine could not create a context (n_ctx {}, batch {}/{}, K {} V {}, fa {}); "
        "MOESWEEP_ENGINE_LOG=info shows its reason",
        p.n_ctx, p.n_batch, p.n_ubatch, p.type_k, p.type_v, api::flash_attn_name(cp)));
  }
}

Context::~Context() {
  if (ctx_) {
    llama_detach_threadpool(ctx_);
    llama_free(ctx_);
  }
  if (pool_batch_ && pool_batch_ != pool_) threadpool_api().destroy(pool_batch_);
  if (pool_) threadpool_api().destroy(pool_);
  for (ggml_threadpool* pool : retired_pools_) threadpool_api().destroy(pool);
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
  // Kept until the context is freed: the CPU backend still holds the last one it used.
  if (pool_batch_ && pool_batch_ != pool_) retired_pools_.push_back(pool_batch_);
  if (pool_) retired_pools_.push_back(pool_);
  pool_ = pool_batch_ = nullptr;
  pool_ = make_pool(t.n_threads);
  pool_batch_ = t.n_threads_batch == t.n_threads ? pool_ : make_pool(t.n_threads_batch);
  llama_attach_threadpool(ctx_, pool_, pool_batch_);
  llama_set_n_threads(ctx_, t.n_threads, t.n_threads_batch);
}

void Context::rewind_to(int n_kv) {
  if (!api::seq_rm(ctx_, n_kv)) {
    throw EngineError(fmt::format("the KV cache of this model cannot rewind to {} tokens", n_kv));
  }
}

int Context::cached_tokens() const {
  return api::seq_pos_max(ctx_) + 1;
}

}  // namespace moesweep::worker
