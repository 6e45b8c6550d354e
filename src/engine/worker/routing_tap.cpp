#include "engine/worker/routing_tap.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/routing_observer.hpp"
#include "ggml-backend.h"
#include "ggml.h"

namespace moesweep {
namespace {

// llama-graph.cpp names the selected-experts tensor "ffn_moe_topk" and the
// context appends "-<layer>" (llama_context::graph_get_cb).
constexpr char kTopkPrefix[] = "ffn_moe_topk-";
constexpr size_t kTopkPrefixLen = sizeof kTopkPrefix - 1;

bool is_topk(const ggml_tensor* t) {
  return t->type == GGML_TYPE_I32 && std::strncmp(t->name, kTopkPrefix, kTopkPrefixLen) == 0;
}

}  // namespace

bool routing_eval_callback(ggml_tensor* t, bool ask, void* user_data) {
  if (ask) return is_topk(t) && static_cast<RoutingObserver*>(user_data)->recording();
  if (!is_topk(t)) return true;  // not ours: let the graph go on
  // The top-k tensor is a view into the argsort result ([n_expert, n_tokens]),
  // so rows are nb[1] apart; copy the span and pick the ids out by stride.
  thread_local std::vector<char> span;
  thread_local std::vector<int32_t> ids;
  const int n_used = static_cast<int>(t->ne[0]);
  const int n_tokens = static_cast<int>(t->ne[1]);
  span.resize(ggml_nbytes(t));
  ggml_backend_tensor_get(t, span.data(), 0, span.size());
  ids.resize(static_cast<size_t>(n_used) * static_cast<size_t>(n_tokens));
  for (int tok = 0; tok < n_tokens; ++tok)
    for (int k = 0; k < n_used; ++k)
      std::memcpy(
          &ids[static_cast<size_t>(tok) * n_used + k],
          span.data() + static_cast<size_t>(tok) * t->nb[1] + static_cast<size_t>(k) * t->nb[0],
          sizeof(int32_t));
  const int layer = std::atoi(t->name + kTopkPrefixLen);
  static_cast<RoutingObserver*>(user_data)->on_routing(layer, n_tokens, n_used, ids.data());
  return true;
}

}  // namespace moesweep
