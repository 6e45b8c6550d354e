#pragma once
// The largest value each sweep setting takes, checked when the spec is made
// (before a directory, a database row or the engine exists). Past these the
// engine crashes (a llama_batch of 2^31 tokens, a threadpool beyond
// GGML_MAX_N_THREADS), the plan's int arithmetic overflows, or a sweep would
// run for weeks; docs/sweep.md's "Limits" lists them.
#include <cstdint>
#include <string>

#include "engine/engine_limits.hpp"

namespace moesweep {

struct SweepSpec;

// 16M tokens: above every trained context of the shipped models (Llama 4
// Scout's 10M is the largest), and small enough that depth + PP + TG of
// three such values still fits in an int.
inline constexpr int kMaxContext = 1 << 24;
inline constexpr int kMaxRepetitions = 10000;
inline constexpr int kMaxBlocks = 1000;  // --blocks: each block loads every model group once
// Points in one plan (contexts x depths x thread settings): at a second each
// already more than a day; split a larger sweep into several runs.
inline constexpr int64_t kMaxPoints = 100000;

struct ValueLimit {
  int64_t max;
  const char* why;  // "the engine's GGML_MAX_N_THREADS", shown in the error
};
// The limit of a settings key (flag long name); INT32_MAX for keys without one.
ValueLimit value_limit(const std::string& key);
// UserError unless min_value <= v <= value_limit(key).max; `flag` names the
// option in the message ("--threads"). For commands beside the sweep (trace)
// that take the same values.
void check_value_limit(const std::string& key, const std::string& flag, int64_t v,
                       int64_t min_value);

// Checks across settings that a single value cannot show: a -b larger than an
// explicit -c, the plan's size. `ctx_and_batch_given`: both -c and -b were set
// by the user (a default batch larger than the context is what llama-bench
// runs and records, see docs/sweep.md, "Limits").
void check_spec_limits(const SweepSpec& spec, bool ctx_and_batch_given, const std::string& origin);

}  // namespace moesweep
