// ik_llama.cpp's side of engine/worker/llama_model.hpp's Context. What
// differs from mainline, and what it means for the method:
//  - threads: no ggml threadpools; llama_set_n_threads sets the count the
//    next graph computes with (OpenMP). Threads are still switched on the
//    live context, without a rebuild, as on mainline; --cpu-mask and
//    --cpu-strict (threadpool features) are refused.
//  - flash attention is a bool (auto = the engine's default, on);
//  - the KV cache is llama_kv_cache_seq_rm / _seq_pos_min / _seq_pos_max;
//  - its own switches -fmoe, -mla, -amb (engine/engine_knobs.hpp);
//  - the eval callback returns int: the routing tap is wrapped.
#include <fmt/format.h>

#include "engine/context_rules.hpp"
#include "engine/worker/context_fill.hpp"
#include "engine/worker/llama_model.hpp"
#include "engine/worker/routing_tap.hpp"
#include "ggml.h"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

int routing_eval_int(ggml_tensor* t, bool ask, void* user_data) {
  return routing_eval_callback(t, ask, user_data) ? 1 : 0;
}

void apply_context_knobs(const EngineKnobs& k, llama_context_params& cp) {
  if (k.fused_moe >= 0) cp.fused_moe_up_gate = k.fused_moe == 1;
  if (k.mla >= 0) cp.mla_attn = k.mla;
  if (k.attn_max_batch >= 0) cp.attn_max_batch = k.attn_max_batch;
}

}  // namespace

Context::Context(const Model& model, const ContextParams& p, RoutingObserver* routing)
    : model_(model), params_(p), routing_(routing) {
  if (const std::string why = context_rule_violation(p); !why.empty()) throw EngineError(why);
  llama_context_params cp = llama_context_default_params();
  fill_context_sizes(cp, p);
  if (p.flash_attn >= 0) cp.flash_attn = p.flash_attn == 1;
  apply_context_knobs(p.knobs, cp);
  if (routing_) {
    cp.cb_eval = &routing_eval_int;
    cp.cb_eval_user_data = routing_;
  }
  ctx_ = llama_init_from_model(model.get(), cp);
  if (!ctx_) {
    throw EngineError(fmt::format(
        "ik_llama.cpp could not create a context (n_ctx {}, batch {}/{}, K {} V {}, fa {}); "
        "MOESWEEP_ENGINE_LOG=info shows its reason",
        p.n_ctx, p.n_batch, p.n_ubatch, p.type_k, p.type_v, cp.flash_attn ? "on" : "off"));
  }
}

Context::~Context() {
  if (ctx_) llama_free(ctx_);
}

void Context::set_threads(const ThreadSettings& t) {
  if (!t.cpu_mask.empty() || t.strict)
    throw UserError("--cpu-mask and --cpu-strict need ggml threadpools, which ik_llama.cpp has not",
                    "plain thread counts on an ik_llama.cpp engine",
                    "drop --cpu-mask/--cpu-strict, or pin the whole run with taskset");
  llama_set_n_threads(ctx_, static_cast<uint32_t>(t.n_threads),
                      static_cast<uint32_t>(t.n_threads_batch));
}

void Context::rewind_to(int n_kv) {
  if (!llama_kv_cache_seq_rm(ctx_, 0, n_kv, -1)) {
    throw EngineError(fmt::format("the KV cache of this model cannot rewind to {} tokens", n_kv));
  }
}

// ik_llama.cpp's seq_pos_max is 0 for an empty sequence too (mainline's is
// -1); its seq_pos_min is -1 when the sequence holds no cell.
int Context::cached_tokens() const {
  if (llama_kv_cache_seq_pos_min(ctx_, 0) < 0) return 0;
  return llama_kv_cache_seq_pos_max(ctx_, 0) + 1;
}

}  // namespace moesweep::worker
