#pragma once
// The eval callback that feeds a RoutingObserver (engine-internal: the
// signature is ggml_backend_sched_eval_callback's).
struct ggml_tensor;

namespace moesweep {

// `user_data` is a RoutingObserver*. Asks the scheduler to stop after each
// "ffn_moe_topk-<layer>" tensor, then copies its ids out.
bool routing_eval_callback(ggml_tensor* t, bool ask, void* user_data);

}  // namespace moesweep
