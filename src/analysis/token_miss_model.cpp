#include "analysis/token_miss_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "analysis/cache_sim.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

UserError not_in_trace(const std::string& what, const std::string& problem) {
  return UserError(fmt::format("{}: {}", what, problem),
                   "the routing trace the same sweep wrote beside its tokens.jsonl",
                   "record the run again with --trace-routing");
}

// The spliced steps, and for each the spliced token it belongs to (-1: the
// trace's own).
struct Spliced {
  std::vector<TraceStep> steps;
  std::vector<int64_t> token;
};

Spliced splice(const RoutingTrace& trace, const std::vector<SplicedCall>& calls,
               const std::string& what) {
  std::vector<size_t> order(calls.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return calls[a].at < calls[b].at; });
  std::vector<int64_t> first_token(calls.size(), 0);  // each call's first token's index
  for (size_t i = 1; i < calls.size(); ++i)
    first_token[i] = first_token[i - 1] + static_cast<int64_t>(calls[i - 1].tokens);
  Spliced s;
  int64_t next = 0;
  const auto copy_trace_until = [&](int64_t end) {
    for (; next < end; ++next) s.steps.push_back(trace.steps[next]), s.token.push_back(-1);
  };
  for (size_t c : order) {
    const SplicedCall& call = calls[c];
    if (call.at < 0 || call.at > static_cast<int64_t>(trace.steps.size()))
      throw not_in_trace(what, fmt::format("a call at step {} of a trace of {} steps", call.at,
                                           trace.steps.size()));
    copy_trace_until(call.at);
    const int64_t end = pass_end(trace, call.pass_first, call.tokens, what);
    int64_t token = first_token[c] - 1;
    for (int64_t k = call.pass_first; k < end; ++k) {
      const bool starts = k == call.pass_first || trace.steps[k].layer <= trace.steps[k - 1].layer;
      token += starts;
      s.steps.push_back(trace.steps[k]), s.token.push_back(token);
    }
  }
  copy_trace_until(static_cast<int64_t>(trace.steps.size()));
  return s;
}

}  // namespace

int64_t pass_end(const RoutingTrace& trace, int64_t first, size_t tokens, const std::string& what) {
  const int64_t n = static_cast<int64_t>(trace.steps.size());
  if (first < 0 || first >= n)
    throw not_in_trace(what,
                       fmt::format("a traced pass at step {} of a trace of {} steps", first, n));
  size_t seen = 0;
  int64_t k = first;
  for (; k < n; ++k) {
    const TraceStep& s = trace.steps[k];
    const bool starts = k == first || s.layer <= trace.steps[k - 1].layer;
    if (starts && ++seen > tokens) break;
    if (s.phase != TracePhase::kGeneration || s.n_tokens != 1)
      throw not_in_trace(what, fmt::format("step {} of the traced pass is not one generated "
                                           "token's routing",
                                           k));
  }
  if (seen < tokens)
    throw not_in_trace(what, fmt::format("the traced pass from step {} holds {} of its {} tokens",
                                         first, seen, tokens));
  return k;
}

std::vector<std::vector<double>> spliced_miss_bytes(const RoutingTrace& trace,
                                                    const std::vector<SplicedCall>& calls,
                                                    const std::vector<uint64_t>& sizes,
                                                    const std::string& what) {
  size_t n_tokens = 0;
  for (const SplicedCall& c : calls) n_tokens += c.tokens;
  Spliced s = splice(trace, calls, what);
  RoutingTrace stream;
  stream.model = trace.model;
  stream.steps = std::move(s.steps);
  stream.ids = trace.ids;
  const std::vector<BlockAccess> reads = model_block_accesses(stream, trace_sizes(trace.model));
  const std::vector<uint64_t> distance = stack_distances(reads);
  std::vector<std::vector<double>> miss(sizes.size(), std::vector<double>(n_tokens, 0));
  for (size_t i = 0; i < reads.size(); ++i) {
    const int64_t token = s.token[reads[i].step];
    if (token < 0) continue;
    for (size_t k = 0; k < sizes.size(); ++k)
      if (distance[i] > sizes[k]) miss[k][token] += static_cast<double>(reads[i].bytes);
  }
  return miss;
}

}  // namespace moesweep
