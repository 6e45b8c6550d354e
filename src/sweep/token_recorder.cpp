#include "sweep/token_recorder.hpp"

#include <fmt/format.h>

#include "results/token_times.hpp"
#include "sweep/routing_trace_factory.hpp"

namespace moesweep {

TokenRecorder::TokenRecorder(LiveContext& ctx, const PlannedPoint& point, const std::string& mode,
                             RoutingTraceFactory* traces)
    : ctx_(ctx), point_(point), mode_(mode), traces_(traces) {}

// --token-times ab: repetitions 0 and 3 of every 4 timed token by token, 1
// and 2 whole only (ABBA), so each adjacent pair has one of each.
bool TokenRecorder::times(int rep) const {
  if (mode_ == "off") return false;
  if (mode_ == "ab") return rep % 4 == 0 || rep % 4 == 3;
  return true;
}

TokenRecorder::Call TokenRecorder::make_call(const char* kind, const std::vector<int32_t>& tokens,
                                             int depth, int rep) const {
  Call c;
  c.kind = kind;
  c.rep = rep;
  c.pos0 = depth;
  c.tokens = tokens;
  if (traces_) c.trace_file = traces_->file_name(), c.trace_step = traces_->steps();
  return c;
}

double TokenRecorder::timed_call(const std::vector<int32_t>& tokens, int depth, int rep) {
  Call c = make_call("timed", tokens, depth, rep);
  int calls = 0;
  for (const Call& p : pending_) calls += p.kind == "timed" && p.rep == rep;
  c.call = calls;
  c.result = ctx_.generate(tokens, depth, {times(rep), !traced()});
  const double seconds = c.result.seconds;
  if (!c.result.token_ns.empty()) timed_ns_.push_back(c.result.token_ns);
  if (calls == 0) sample_inputs_.push_back(c.result.inputs);
  pending_.push_back(std::move(c));
  return seconds;
}

void TokenRecorder::routing_pass(const std::vector<int32_t>& tokens, int depth, int rep) {
  Call c = make_call("routing", tokens, depth, rep);
  c.result = ctx_.generate(tokens, depth, {true, true});
  pass_tps_.push_back(static_cast<double>(tokens.size()) / c.result.seconds);
  pass_inputs_.push_back(c.result.inputs);
  pending_.push_back(std::move(c));
}

void TokenRecorder::sample_done(int rep, double tokens_per_s, const nlohmann::json& sim,
                                RunListener& listener) {
  (times(rep) ? with_times_ : whole_only_).push_back(tokens_per_s);
  if (traced()) sample_tps_.push_back(tokens_per_s);
  for (Call& c : pending_) {
    // timed whole only, with nothing to splice or count: no line
    if (c.result.token_ns.empty() && !traced() && sim.is_null()) continue;
    if (c.kind == "timed" && !sim.is_null()) c.sim = sim;
    const TokenCallEvent e{.point = point_.index,
                           .params = &point_.params,
                           .kind = c.kind.c_str(),
                           .rep = c.rep,
                           .call = c.call,
                           .pos0 = c.pos0,
                           .tokens = &c.tokens,
                           .ns = &c.result.token_ns,
                           .inputs = c.result.inputs,
                           .trace_file = c.trace_file,
                           .trace_step = c.trace_step,
                           .sim = c.sim};
    listener.token_call(e);
  }
  pending_.clear();
}

void TokenRecorder::finish(Record& rec) const {
  if (!timed_ns_.empty()) rec.extra.token_times = to_json(summarize_token_times(timed_ns_));
  if (mode_ == "ab") rec.extra.token_times["ab"] = to_json(paired_effect(whole_only_, with_times_));
  if (!traced() || pass_inputs_.empty()) return;
  bool identical = pass_inputs_.size() == sample_inputs_.size();
  for (size_t i = 0; identical && i < pass_inputs_.size(); ++i)
    identical = !pass_inputs_[i].empty() && pass_inputs_[i] == sample_inputs_[i];
  nlohmann::json pass = {{"passes", pass_inputs_.size()},
                         {"same_tokens_and_positions", identical},
                         {"tap_speed", to_json(paired_effect(pass_tps_, sample_tps_))}};
  rec.extra.routing_pass = std::move(pass);
}

}  // namespace moesweep
