// The parts of engine/worker/llama_model.hpp's Context that read the same on
// every engine kind (their llama.h agree on batches and decoding): the timed
// decode loop, its callgrind phase marks (--counters sim) and the planted
// regressions of the gates' tests.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>
#ifdef MOESWEEP_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif

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

// Under valgrind's callgrind (--counters sim) every timed decode is one dump
// of its own: the counts are zeroed where the timer starts and written where
// it stops, so load, warm-up, fills and rewinds count for nothing, exactly as
// the timer leaves them out. The dump's label says what was decoded, for the
// reader to check (counters/callgrind_dump.hpp). Outside valgrind these are a
// few instructions each; a worker built without valgrind's headers marks
// nothing, and the sim backend says so.
void mark_phase_start() {
#ifdef MOESWEEP_HAVE_CALLGRIND
  CALLGRIND_ZERO_STATS;
#endif
}

// A dump labelled "moesweep <what> <a>=<x> <b>=<y>".
void dump_counts([[maybe_unused]] const char* format, [[maybe_unused]] size_t x,
                 [[maybe_unused]] size_t y) {
#ifdef MOESWEEP_HAVE_CALLGRIND
  char label[96];
  std::snprintf(label, sizeof label, format, x, y);
  CALLGRIND_DUMP_STATS_AT(label);
#endif
}

void mark_phase_end(size_t tokens, size_t chunk) {
  dump_counts("moesweep decode tokens=%zu chunk=%zu", tokens, chunk);
}

// With MOESWEEP_SIM_TOKEN_DUMPS=1 in the worker's environment (--counters sim
// sets it for --sim-per-token), each generated token is a dump of its own
// before the phase's, so its simulated misses can be set beside the cache
// model's prediction for that token (docs/l3.md, "Per-token"); the phase's
// counts are then the sum of its token dumps and its last dump.
bool sim_token_dumps() {
  static const bool on = [] {
    const char* e = std::getenv("MOESWEEP_SIM_TOKEN_DUMPS");
    return e && std::string_view(e) == "1";
  }();
  return on;
}

void mark_token_end(size_t index, size_t tokens) {
  dump_counts("moesweep token index=%zu of=%zu", index, tokens);
}

// FNV-1a 64 over the (token, position) pairs the batches held: two decodes
// with the same hash decoded the same sequence at the same positions.
class InputsHash {
 public:
  void add(int32_t token, int32_t pos) {
    for (int32_t v : {token, pos})
      for (int b = 0; b < 4; ++b) {
        h_ ^= static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * b));
        h_ *= 0x100000001b3ull;
      }
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

int64_t nanoseconds(Clock::duration d) {
  return std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

// A planted regression for testing the count gate (moesweep gate --base
// SPEC --counts): N iterations of a loop over a 32 KiB buffer after every
// generated token, inside the timed region: 6 instructions and one L1-resident
// read per iteration (measured: docs/counters.md), so instructions grow and LL
// misses do not. N comes from MOESWEEP_PLANTED_TG_WORK in the worker's
// environment (the tests), else from a worker built with
// -DMOESWEEP_PLANTED_TG_WORK=N (`engine add ... --cmake-flag`, the gate's
// benchmark), else 0. Never set otherwise.
int64_t planted_work_iterations() {
  static const int64_t n = [] {
    if (const char* e = std::getenv("MOESWEEP_PLANTED_TG_WORK"); e && *e)
      return std::clamp<int64_t>(std::strtoll(e, nullptr, 10), 0, int64_t{1} << 32);
#ifdef MOESWEEP_PLANTED_TG_WORK
    return int64_t{MOESWEEP_PLANTED_TG_WORK};
#else
    return int64_t{0};
#endif
  }();
  return n;
}

void run_planted_work() {
  const int64_t n = planted_work_iterations();
  if (n == 0) return;
  static const std::vector<uint64_t> buffer(4096, 1);
  uint64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    sum += buffer[static_cast<size_t>(i) & 4095];
    asm volatile("" : "+r"(sum));  // one add per iteration: not vectorised, not removed
  }
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

// A planted regression for testing the A/B gate (moesweep gate --base,
// scripts/bench/engine-gate), inside the timed region, never set otherwise:
// a worker built with -DMOESWEEP_PLANTED_TG_DELAY_US=N (`engine add ...
// --cmake-flag -DMOESWEEP_PLANTED_TG_DELAY_US=N`) spins N microseconds after
// every generated token; one built with -DMOESWEEP_PLANTED_TG_SLOWDOWN_PCT=N
// spins N% of the token's own decode time, so decode is N% slower at every
// depth and thread count alike.
void Context::spin_planted_delay([[maybe_unused]] double token_seconds) {
#ifdef MOESWEEP_PLANTED_TG_DELAY_US
  const auto until = Clock::now() + std::chrono::microseconds(MOESWEEP_PLANTED_TG_DELAY_US);
  while (Clock::now() < until) {
  }
#endif
#ifdef MOESWEEP_PLANTED_TG_SLOWDOWN_PCT
  const auto spin =
      std::chrono::duration<double>(token_seconds * MOESWEEP_PLANTED_TG_SLOWDOWN_PCT / 100.0);
  const auto until_pct = Clock::now() + std::chrono::duration_cast<Clock::duration>(spin);
  while (Clock::now() < until_pct) {
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

// Each token of a generation is timed from the end of the one before (its
// batch, the decode and the engine's own synchronize; nothing is added): the
// token times of a call add up to its seconds but for the loop's last lines.
Context::Timing Context::decode(const std::vector<int32_t>& tokens, int pos0, int chunk_tokens,
                                bool token_times) {
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
  Timing out;
  const bool per_token = chunk == 1 && token_times;
  const bool token_dumps = chunk == 1 && sim_token_dumps();
  if (per_token) out.token_ns.reserve(tokens.size());
  InputsHash inputs;
  mark_phase_start();
  const auto t0 = Clock::now();
  auto step_t0 = t0;
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
      inputs.add(batch.token[i], batch.pos[i]);
    }
    if (routing_) routing_->on_decode(static_cast<int>(n), chunk == 1);
    const auto token_t0 = Clock::now();
    decode_or_throw(&batch, what);
    llama_synchronize(ctx_);
    if (chunk == 1) spin_planted_delay(seconds_since(token_t0));
    if (chunk == 1) run_planted_work();
    if (per_token) {
      const auto now = Clock::now();
      out.token_ns.push_back(nanoseconds(now - step_t0));
      step_t0 = now;
    }
    if (token_dumps) mark_token_end(first, tokens.size());
  }
  out.seconds = seconds_since(t0);
  mark_phase_end(tokens.size(), chunk);
  out.inputs_hash = inputs.value();
  return out;
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
