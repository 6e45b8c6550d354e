#pragma once
// `moesweep l3 RUN --per-token` (issue 46): a sweep run recorded with
// --trace-routing read token by token. Every timed TG call of tokens.jsonl is
// matched with its traced pass (the same point and repetition, the same
// tokens at the same positions, the same hash from the worker: else it is
// left out and counted), put back into its context's trace where it ran
// (token_miss_model.hpp), and each of its tokens' time set against its
// predicted miss bytes at every cache size of a log-spaced grid
// (token_cache_fit.hpp). With --simulated the response is each token's
// simulated LL misses (sweep --counters sim --sim-per-token) in bytes instead
// of its time, and the model's predictions at the simulated LL's size are
// set beside them (correlation, bias).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>

#include "analysis/token_cache_fit.hpp"
#include "report/plots.hpp"

namespace moesweep {

class RunLock;

struct PerTokenOptions {
  bool simulated = false;
  int bootstrap = 999;
  uint64_t min_bytes = uint64_t{1} << 20, max_bytes = uint64_t{1} << 30;
  int per_doubling = 4;
  double interrupted_factor = 3;  // drop_interrupted's (times only; 0: keep every token)
  int skip_first =
      0;  // leave out each call's first tokens (their cache state is the call before's)
};

// The model against the simulated LL, token by token, at its size.
struct SimAgreement {
  uint64_t ll_bytes = 0;
  size_t tokens = 0;
  double correlation = 0;                        // Pearson, measured and predicted bytes
  double mean_measured = 0, mean_predicted = 0;  // bytes per token
  double bias = 0;                               // mean(measured - predicted), bytes per token
};

struct PerTokenL3 {
  CacheFit fit;
  size_t timed_calls = 0, fitted_calls = 0;
  size_t without_pass = 0;  // no traced pass of the same repetition
  size_t mismatched = 0;    // a pass of other tokens, positions or hash
  size_t interrupted = 0;   // tokens left out as interrupted (token_cache_fit.hpp)
  size_t skipped = 0;       // tokens left out as the first of their call (--skip-first)
  size_t points = 0, points_repeatable = 0;  // points whose passes all routed alike
  std::optional<SimAgreement> sim;
  nlohmann::json to_json() const;
};

// UserError (exit 2) naming the run and the fix when it has no per-token
// times, no traces, or nothing to match.
PerTokenL3 per_token_l3(const std::filesystem::path& run, const PerTokenOptions& options);

struct PerTokenOutput {
  PerTokenL3 result;
  std::filesystem::path file;  // RUN/l3_per_token/per_token.json
  std::optional<PlotOutcome> plot;
};
// The analysis written into RUN/l3_per_token/ while the run's lock is held.
PerTokenOutput write_per_token_l3(const std::filesystem::path& run, const PerTokenOptions& options,
                                  bool plot);

}  // namespace moesweep
