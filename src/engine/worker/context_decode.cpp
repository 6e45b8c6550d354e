// The parts of engine/worker/llama_model.hpp's Context that read the same on
// every engine kind (their llama.h agree on batches and decoding): the timed
// decode loop and the planted delay of the A/B gate's test.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "engine/engine_types.hpp"
#include "engine/worker/llama_model.hpp"
#include "ggml.h"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

// The engine's own names for tensor types (-ctk/-ctv), checked by the spec.
int ggml_type_from_name(const std::string& name, const std::string& flag) {
  for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
    const char* n = ggml_type_name(static_cast<ggml_type>(t));
    if (n && name == n) return t;
  }
  throw UserError(fmt::format("{}: unknown tensor type '{}'", flag, name),
                  "f16, bf16, q8_0, q4_0, ...", fmt::format("fix {}", flag));
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

int Context::n_ctx() const {
  return static_cast<int>(llama_n_ctx(ctx_));
}

int Context::n_batch() const {
  return static_cast<int>(llama_n_batch(ctx_));
}

int Context::n_ubatch() const {
  return static_cast<int>(llama_n_ubatch(ctx_));
}

int Context::n_threads() const {
  return static_cast<int>(llama_n_threads(ctx_));
}

int Context::n_threads_batch() const {
  return static_cast<int>(llama_n_threads_batch(ctx_));
}

}  // namespace moesweep::worker
