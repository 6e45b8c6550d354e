#pragma once
// The per-token side of one point's TG samples (issue 46). Every timed call
// of a sample asks the worker for each token's time; the calls go to the
// listeners as TokenCallEvents (tokens.jsonl) once the sample is in, and the
// point's record gets their summary (extra.token_times: p50, p90, p99, max,
// the slope against position). Two measurements ride along, each side by
// side with the samples in ABBA order:
//  - --token-times ab: every other pair of samples is timed whole only, and
//    extra.token_times.ab says how much faster those ran (the cost of the
//    per-token timing, against the pairs' own MDE);
//  - --trace-routing: the timed calls run with the routing tap off, and each
//    sample has a traced pass of the same tokens at the same positions on the
//    same context (before it in odd repetitions, after it in even ones), so
//    the trace holds the routing of exactly the tokens timed.
//    extra.routing_pass says whether the worker decoded the same sequence in
//    both (its hash of tokens and positions) and how much the tap slowed the
//    pass against the sample.
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "results/record.hpp"
#include "results/sink.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

class RoutingTraceFactory;
namespace counters {
class CounterSession;
}

class TokenRecorder {
 public:
  // `traces`: the context's trace (null: untraced). `mode`: --token-times.
  TokenRecorder(LiveContext& ctx, const PlannedPoint& point, const std::string& mode,
                RoutingTraceFactory* traces);
  bool traced() const { return traces_ != nullptr; }
  // Whether repetition `rep`'s traced pass goes before its sample.
  bool pass_first(int rep) const { return traced() && rep % 2 == 1; }
  // One timed call of repetition `rep`'s sample: its seconds.
  double timed_call(const std::vector<int32_t>& tokens, int depth, int rep);
  // The traced pass of repetition `rep` (the caller rewinds after it).
  void routing_pass(const std::vector<int32_t>& tokens, int depth, int rep);
  // After the sample: its speed (tokens/s), the counters' per-token figures
  // (null: none) and every pending call to `listener`.
  void sample_done(int rep, double tokens_per_s, const nlohmann::json& sim, RunListener& listener);
  // The summary into rec.extra.
  void finish(Record& rec) const;

 private:
  struct Call {
    std::string kind;
    int rep = 0, call = 0, pos0 = 0;
    std::vector<int32_t> tokens;
    DecodeResult result;
    std::string trace_file;
    int64_t trace_step = -1;
    nlohmann::json sim;
  };
  bool times(int rep) const;
  Call make_call(const char* kind, const std::vector<int32_t>& tokens, int depth, int rep) const;
  LiveContext& ctx_;
  const PlannedPoint& point_;
  std::string mode_;
  RoutingTraceFactory* traces_;
  std::vector<Call> pending_;
  std::vector<std::vector<int64_t>> timed_ns_;   // every timed call's token times
  std::vector<double> with_times_, whole_only_;  // --token-times ab: sample speeds
  std::vector<double> sample_tps_, pass_tps_;    // --trace-routing: per repetition
  std::vector<std::string> sample_inputs_, pass_inputs_;
};

}  // namespace moesweep
