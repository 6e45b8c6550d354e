#include "analysis/trace_session.hpp"

#include <algorithm>
#include <random>

namespace moesweep {
namespace {

std::vector<int32_t> random_tokens(std::mt19937_64& rng, int n, int n_vocab) {
  std::uniform_int_distribution<int32_t> pick(0, std::max(1, n_vocab) - 1);
  std::vector<int32_t> out(static_cast<size_t>(std::max(0, n)));
  for (auto& t : out) t = pick(rng);
  return out;
}

struct Tokens {
  std::vector<int32_t> prompt, gen;
};

PassSpeed one_pass(LiveContext& ctx, const Tokens& t) {
  ctx.rewind_to(0);
  PassSpeed s;
  if (!t.prompt.empty()) s.pp_tps = static_cast<double>(t.prompt.size()) / ctx.prefill(t.prompt, 0);
  if (!t.gen.empty())
    s.tg_tps =
        static_cast<double>(t.gen.size()) / ctx.generate(t.gen, static_cast<int>(t.prompt.size()));
  return s;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

PassSpeed median_speed(const std::vector<PassSpeed>& passes) {
  std::vector<double> pp, tg;
  for (const PassSpeed& p : passes) pp.push_back(p.pp_tps), tg.push_back(p.tg_tps);
  return {median_of(pp), median_of(tg)};
}

TraceRunResult run_traced(const LoadedModel& model, const TraceModel& facts,
                          const TraceRunSettings& s) {
  TraceRunResult r;
  r.trace.model = facts;
  std::mt19937_64 rng(s.token_seed);
  const Tokens tokens{random_tokens(rng, s.n_prompt, model.facts().n_vocab),
                      random_tokens(rng, s.n_gen, model.facts().n_vocab)};
  ContextParams cp = s.context;
  const int need = s.n_prompt + s.n_gen;
  cp.n_ctx = std::max(cp.n_ctx, (need + 255) / 256 * 256);
  TraceRecorder recorder(nullptr);
  LiveContext traced(model, cp, &recorder);
  traced.set_threads(s.threads);
  if (s.overhead_reps > 0) {
    LiveContext plain(model, cp);
    plain.set_threads(s.threads);
    one_pass(plain, tokens);  // warm-up: page in the weights before anything is timed
    recorder.trace = &r.trace;
    r.recorded = one_pass(traced, tokens);
    RoutingTrace scratch;
    recorder.trace = &scratch;  // same work as recording, kept out of the trace
    for (int i = 0; i < s.overhead_reps; ++i) {
      // ABBA order: neither side always runs on the caches the other warmed
      for (int side : {i % 2, 1 - i % 2}) {
        scratch.steps.clear(), scratch.ids.clear();
        if (side == 0)
          r.untraced.push_back(one_pass(plain, tokens));
        else
          r.traced.push_back(one_pass(traced, tokens));
      }
    }
  } else {
    recorder.trace = &r.trace;
    r.recorded = one_pass(traced, tokens);
  }
  return r;
}

}  // namespace moesweep
