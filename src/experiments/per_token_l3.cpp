#include "experiments/per_token_l3.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "analysis/routing_trace.hpp"
#include "analysis/token_miss_model.hpp"
#include "counters/sim_cache.hpp"
#include "results/run_source.hpp"
#include "results/token_file.hpp"
#include "run/run_directory.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

struct Matched {
  const TokenCall* timed = nullptr;
  const TokenCall* pass = nullptr;
};

[[noreturn]] void refuse(const std::filesystem::path& run, const std::string& what,
                         const std::string& fix) {
  throw UserError(fmt::format("run '{}' cannot be read token by token: {}", run.string(), what),
                  "a sweep run recorded with --trace-routing (tokens.jsonl and its traces)", fix);
}

bool has_response(const TokenCall& c, bool simulated) {
  return simulated ? !c.sim_ll_misses.empty() : !c.ns.empty();
}

// Every timed call with its traced pass, by trace file; the rest counted.
std::map<std::string, std::vector<Matched>> match_calls(const TokenFile& file, bool simulated,
                                                        PerTokenL3& out) {
  std::map<std::pair<std::string, int>, const TokenCall*> passes;
  for (const TokenCall& c : file.calls)
    if (!c.timed()) passes[{c.key, c.rep}] = &c;
  std::map<std::string, std::vector<Matched>> by_trace;
  for (const TokenCall& c : file.calls) {
    if (!c.timed() || !has_response(c, simulated)) continue;
    ++out.timed_calls;
    const auto it = passes.find({c.key, c.rep});
    if (it == passes.end() || c.trace_file.empty()) {
      ++out.without_pass;
      continue;
    }
    const TokenCall& p = *it->second;
    if (p.tokens != c.tokens || p.pos0 != c.pos0 || p.inputs.empty() || p.inputs != c.inputs ||
        p.trace_file != c.trace_file) {
      ++out.mismatched;
      continue;
    }
    by_trace[c.trace_file].push_back({&c, &p});
  }
  return by_trace;
}

// Whether the passes of one point routed alike in every repetition (the
// engine's routing of a sequence is repeatable, so the pass stands for the sample).
bool same_routing(const RoutingTrace& t, const TokenCall& a, const TokenCall& b,
                  const std::string& what) {
  const int64_t ea = pass_end(t, a.trace_step, a.tokens.size(), what);
  const int64_t eb = pass_end(t, b.trace_step, b.tokens.size(), what);
  if (ea - a.trace_step != eb - b.trace_step) return false;
  for (int64_t k = 0; k < ea - a.trace_step; ++k) {
    const TraceStep& x = t.steps[a.trace_step + k];
    const TraceStep& y = t.steps[b.trace_step + k];
    if (x.layer != y.layer || x.n_used != y.n_used) return false;
    for (uint64_t i = 0; i < uint64_t{x.n_used} * x.n_tokens; ++i)
      if (t.ids[x.first_id + i] != t.ids[y.first_id + i]) return false;
  }
  return true;
}

void count_repeatable(const RoutingTrace& t, const std::vector<Matched>& calls,
                      const std::string& what, PerTokenL3& out) {
  std::map<std::string, std::vector<const TokenCall*>> by_point;
  for (const Matched& m : calls) {
    auto& v = by_point[m.pass->key];
    if (v.empty() || v.back() != m.pass) v.push_back(m.pass);
  }
  for (const auto& [key, passes] : by_point) {
    ++out.points;
    bool same = true;
    for (size_t i = 1; same && i < passes.size(); ++i)
      same = same_routing(t, *passes.front(), *passes[i], what);
    out.points_repeatable += same;
  }
}

// One trace's timed tokens into the fit's data (and the LL size's predictions).
void add_trace(const std::filesystem::path& run, const std::string& name,
               const std::vector<Matched>& calls, const std::vector<uint64_t>& sizes,
               int line_bytes, const PerTokenOptions& o, CacheFitData& d,
               std::vector<double>& at_ll, PerTokenL3& out) {
  const RoutingTrace trace = read_routing_trace(run / name);
  const std::string what = (run / name).string();
  count_repeatable(trace, calls, what, out);
  std::vector<SplicedCall> spliced;
  for (const Matched& m : calls)
    spliced.push_back({m.timed->trace_step, m.pass->trace_step, m.timed->tokens.size()});
  const std::vector<std::vector<double>> miss = spliced_miss_bytes(trace, spliced, sizes, what);
  const int first_call = d.call.empty() ? 0 : d.call.back() + 1;
  size_t token = 0;  // index into miss[k]: every spliced token, in order
  for (size_t c = 0; c < calls.size(); ++c) {
    const TokenCall& t = *calls[c].timed;
    for (size_t i = 0; i < t.tokens.size(); ++i, ++token) {
      if (i < static_cast<size_t>(o.skip_first)) {
        ++out.skipped;
        continue;
      }
      d.call.push_back(first_call + static_cast<int>(c));
      d.position.push_back(static_cast<double>(i));
      d.y.push_back(o.simulated ? t.sim_ll_misses[i] * line_bytes
                                : static_cast<double>(t.ns[i]) * 1e-9);
      for (size_t k = 0; k < d.sizes.size(); ++k) d.miss[k].push_back(miss[k][token]);
      if (sizes.size() > d.sizes.size()) at_ll.push_back(miss.back()[token]);
    }
  }
  out.fitted_calls += calls.size();
}

// The simulated caches the run's records name (--counters sim), if any.
std::optional<counters::CacheGeometry> simulated_ll(const std::filesystem::path& run) {
  for (const Record& r : read_records_jsonl(run / "records.jsonl")) {
    const nlohmann::json::json_pointer p("/simulated/caches");
    if (r.ok && r.tg.counters.is_object() && r.tg.counters.contains(p) &&
        r.tg.counters.at(p).is_string())
      return counters::parse_sim_cache(r.tg.counters.at(p).get<std::string>()).ll;
  }
  return std::nullopt;
}

SimAgreement agreement(const std::vector<double>& y, const std::vector<double>& m, uint64_t ll) {
  SimAgreement a;
  a.ll_bytes = ll;
  a.tokens = y.size();
  if (y.empty()) return a;
  const double n = static_cast<double>(y.size());
  double sy = 0, sm = 0;
  for (size_t i = 0; i < y.size(); ++i) sy += y[i], sm += m[i];
  a.mean_measured = sy / n, a.mean_predicted = sm / n, a.bias = a.mean_measured - a.mean_predicted;
  double cyy = 0, cmm = 0, cym = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double dy = y[i] - a.mean_measured, dm = m[i] - a.mean_predicted;
    cyy += dy * dy, cmm += dm * dm, cym += dy * dm;
  }
  a.correlation = cyy > 0 && cmm > 0 ? cym / std::sqrt(cyy * cmm) : 0;
  return a;
}

}  // namespace

PerTokenL3 per_token_l3(const std::filesystem::path& run, const PerTokenOptions& o) {
  if (!std::filesystem::exists(run / kTokenFileName))
    refuse(run, "it has no tokens.jsonl", "record it with this moesweep's sweep --trace-routing");
  const TokenFile file = read_token_file(run / kTokenFileName);
  PerTokenL3 out;
  const auto by_trace = match_calls(file, o.simulated, out);
  if (by_trace.empty())
    refuse(run,
           fmt::format("none of its {} timed TG calls{} has a traced pass of the same tokens",
                       out.timed_calls, o.simulated ? " with per-token simulated counts" : ""),
           o.simulated ? "record it with --trace-routing --counters sim --sim-per-token"
                       : "record it with --trace-routing");
  const std::optional<counters::CacheGeometry> ll = o.simulated ? simulated_ll(run) : std::nullopt;
  if (o.simulated && !ll)
    refuse(run, "its records name no simulated caches", "record it with --counters sim");
  CacheFitData d;
  d.sizes = log_spaced_sizes(o.min_bytes, o.max_bytes, o.per_doubling);
  d.miss.resize(d.sizes.size());
  std::vector<uint64_t> sizes = d.sizes;
  if (ll) sizes.push_back(ll->size_bytes);
  std::vector<double> at_ll;
  for (const auto& [name, calls] : by_trace)
    add_trace(run, name, calls, sizes, ll ? ll->line_bytes : 64, o, d, at_ll, out);
  if (!o.simulated) out.interrupted = drop_interrupted(d, o.interrupted_factor);
  out.fit = fit_cache_size(d, o.bootstrap);
  out.fit.verdict = cache_fit_verdict(out.fit, o.simulated ? "B" : "s");
  if (ll) out.sim = agreement(d.y, at_ll, ll->size_bytes);
  return out;
}

nlohmann::json PerTokenL3::to_json() const {
  nlohmann::json j = {{"fit", moesweep::to_json(fit)},
                      {"timed_calls", timed_calls},
                      {"fitted_calls", fitted_calls},
                      {"left_out",
                       {{"without_pass", without_pass},
                        {"mismatched", mismatched},
                        {"interrupted_tokens", interrupted},
                        {"first_tokens_skipped", skipped}}},
                      {"points", points},
                      {"points_routing_repeatable", points_repeatable}};
  if (sim)
    j["simulated_ll"] = {{"ll_bytes", sim->ll_bytes},
                         {"tokens", sim->tokens},
                         {"correlation", sim->correlation},
                         {"mean_measured_bytes", sim->mean_measured},
                         {"mean_predicted_bytes", sim->mean_predicted},
                         {"bias_bytes", sim->bias}};
  return j;
}

namespace {

// The profile: likelihood ratio against no cache term, per size (MiB, log axis).
nlohmann::json profile_plot(const CacheFit& f, bool simulated) {
  nlohmann::json s = {{"label", "likelihood ratio against no cache term"}};
  for (const CacheFitSize& z : f.sizes)
    if (z.fitted)
      s["x"].push_back(static_cast<double>(z.bytes) / (1 << 20)), s["y"].push_back(z.lr);
  return {{"file", simulated ? "per_token_simulated_profile.png" : "per_token_profile.png"},
          {"title", simulated ? "per-token fit of simulated LL misses: cache size profile"
                              : "per-token fit of decode times: cache size profile"},
          {"xlabel", "byte-LRU size S (MiB)"},
          {"ylabel", "n log(RSS_0 / RSS(S))"},
          {"log_x", true},
          {"series", {s}}};
}

}  // namespace

PerTokenOutput write_per_token_l3(const std::filesystem::path& run, const PerTokenOptions& o,
                                  bool plot) {
  const RunLock lock(run);
  PerTokenOutput out;
  out.result = per_token_l3(run, o);
  const std::filesystem::path dir = run / "l3_per_token";
  std::filesystem::create_directories(dir);
  out.file = dir / (o.simulated ? "per_token_simulated.json" : "per_token.json");
  write_file_atomically(out.file, out.result.to_json().dump(1) + "\n");
  if (plot && out.result.fit.best >= 0)
    out.plot = draw_plots({{"xy", {profile_plot(out.result.fit, o.simulated)}}}, dir);
  return out;
}

}  // namespace moesweep
