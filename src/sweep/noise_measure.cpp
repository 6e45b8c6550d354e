#include "sweep/noise_measure.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "engine/engine.hpp"
#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/noise_probe.hpp"
#include "model/twin_builder.hpp"
#include "results/stats.hpp"
#include "run/run_lifecycle.hpp"
#include "sweep/plan.hpp"
#include "sweep/runner.hpp"
#include "sweep/sample_length.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

constexpr int kMaxTgTokens = 1 << 16;
constexpr int kMaxUbatches = 64;
constexpr double kMaxGap = 60;
constexpr int kMaxRepetitions = 1000;
// The whole measurement's bounds: each length and count is bounded above, and
// so is their product, so no combination of them runs for days.
constexpr int64_t kMaxTotalTgTokens = 1 << 20;  // the defaults decode ~16,000
constexpr int64_t kMaxTotalUbatches = 4096;     // the defaults prefill 360
constexpr double kMaxTotalPauseS = 3600;        // the defaults pause 50 s

[[noreturn]] void refuse(const std::string& what, const std::string& expected,
                         const std::string& fix) {
  throw UserError("hw --noise: " + what, expected, fix);
}

// "negative", "0" or "above 65536": why a length or count is out of range.
std::string out_of_range(int64_t v, int64_t max) {
  return v < 0 ? "is negative" : v == 0 ? "is 0" : fmt::format("is above {}", max);
}

void check_tg_lengths(const NoiseMeasureOptions& o) {
  const std::vector<int>& tg = o.tg_tokens;
  if (tg.empty() || !std::is_sorted(tg.begin(), tg.end()) || tg.front() < 1 ||
      tg.back() > kMaxTgTokens || std::adjacent_find(tg.begin(), tg.end()) != tg.end())
    refuse(fmt::format("--noise-tg {}", fmt::join(tg, ",")),
           fmt::format("rising TG lengths from 1 to {} tokens", kMaxTgTokens),
           "pass e.g. --noise-tg 16,64,256,1024");
  if (o.gap_tg_tokens < 1 || o.gap_tg_tokens > kMaxTgTokens)
    refuse(fmt::format("--noise-gap-tg {} {}", o.gap_tg_tokens,
                       out_of_range(o.gap_tg_tokens, kMaxTgTokens)),
           fmt::format("TG tokens per sample of the pause curve, from 1 to {}, a multiple of "
                       "the first --noise-tg",
                       kMaxTgTokens),
           "pass e.g. --noise-gap-tg 64");
  for (int t : tg)
    if (t % tg.front() != 0 || o.gap_tg_tokens % tg.front() != 0)
      refuse(fmt::format("TG length {} is not a multiple of the first, {}",
                         t % tg.front() ? t : o.gap_tg_tokens, tg.front()),
             "every TG length a whole number of calls of the first",
             "pass lengths such as 16,64,256,1024");
}

// What the whole measurement decodes, prefills and waits.
void check_totals(const NoiseMeasureOptions& o) {
  const int64_t reps = o.repetitions;
  int64_t tg = 0, ubatches = 0;
  for (int t : o.tg_tokens) tg += t * reps;
  tg += int64_t{o.gap_tg_tokens} * reps * static_cast<int64_t>(o.gaps_s.size());
  for (int u : o.pp_ubatches) ubatches += u * reps;
  const std::string fix = "fewer or shorter lengths, or fewer --noise-repetitions";
  if (tg > kMaxTotalTgTokens)
    refuse(fmt::format("{} TG tokens in all ({} repetitions of each length and pause)", tg, reps),
           fmt::format("at most {} TG tokens in one measurement", kMaxTotalTgTokens), fix);
  if (ubatches > kMaxTotalUbatches)
    refuse(fmt::format("{} PP ubatches in all ({} repetitions of each length)", ubatches, reps),
           fmt::format("at most {} ubatches in one measurement", kMaxTotalUbatches), fix);
  if (noise_pause_seconds(o) > kMaxTotalPauseS)
    refuse(fmt::format("{:g} s of pauses in all ({} repetitions of each pause)",
                       noise_pause_seconds(o), reps),
           fmt::format("at most {:g} s of pauses in one measurement", kMaxTotalPauseS), fix);
}

}  // namespace

void check_noise_options(const NoiseMeasureOptions& o) {
  check_tg_lengths(o);
  const std::vector<int>& pp = o.pp_ubatches;
  if (std::any_of(pp.begin(), pp.end(), [](int u) { return u < 1 || u > kMaxUbatches; }))
    refuse(fmt::format("--noise-pp {}", fmt::join(pp, ",")),
           fmt::format("ubatch counts from 1 to {}", kMaxUbatches), "pass e.g. --noise-pp 1-8");
  if (std::any_of(o.gaps_s.begin(), o.gaps_s.end(),
                  [](double g) { return !(g >= 0 && g <= kMaxGap); }))
    refuse("a pause outside 0-60 s", "pauses from 0 to 60 seconds", "pass e.g. --noise-gaps 0,1,4");
  if (o.repetitions < 2 || o.repetitions > kMaxRepetitions)
    refuse(fmt::format("{} repetitions", o.repetitions),
           fmt::format("2 to {} samples per length (a CV needs two)", kMaxRepetitions),
           "pass e.g. --noise-repetitions 10");
  check_totals(o);
}

namespace {

// The default sweep's plan of this model at one depth: its twin, context and
// threads, so the profile is measured as a sweep would measure.
Plan noise_plan(const NoiseMeasureOptions& o) {
  const std::map<std::string, nlohmann::json> settings = {
      {"model", o.model},
      {"threads", std::to_string(o.threads)},
      {"depths", std::to_string(o.depth)},
      {"n-gen", std::to_string(o.tg_tokens.front())},
      {"repetitions", "1"}};
  return make_plan(spec_from_settings(settings, "hw --noise"), cpu_info().logical_cpus);
}

std::string model_path(ModelGroup& mg, const SweepSpec& spec,
                       const std::function<void(const std::string&)>& progress) {
  if (!mg.choice.file.empty()) return mg.choice.file;
  return ensure_twin(twin_spec_of(mg, spec), {}, false, progress).path.string();
}

// The engine at one depth: samples of calls of one TG length or one ubatch.
class Sampler {
 public:
  Sampler(LiveContext& ctx, std::vector<int32_t> tokens, int depth, int base, int ubatch)
      : ctx_(ctx), tokens_(std::move(tokens)), depth_(depth), base_(base), ubatch_(ubatch) {}
  // The cache filled to the depth, then one untimed PP and TG (graphs, buffers and pages ready).
  void warm_up() {
    if (depth_ > 0) ctx_.prefill(slice(0, depth_), 0);
    ctx_.prefill(slice(depth_, ubatch_), depth_);
    ctx_.rewind_to(depth_);
    ctx_.generate(slice(depth_ + ubatch_, base_), depth_);
    ctx_.rewind_to(depth_);
  }
  NoiseCurvePoint tg(int calls, double gap_s, int reps) {
    const std::vector<int32_t> t = slice(depth_ + ubatch_, base_);
    return point(base_, calls, gap_s, reps, [&] { return ctx_.generate(t, depth_); });
  }
  NoiseCurvePoint pp(int calls, int reps) {
    const std::vector<int32_t> t = slice(depth_, ubatch_);
    return point(ubatch_, calls, 0, reps, [&] { return ctx_.prefill(t, depth_); });
  }

 private:
  std::vector<int32_t> slice(int from, int n) const {
    return {tokens_.begin() + from, tokens_.begin() + from + n};
  }
  NoiseCurvePoint point(int tokens, int calls, double gap_s, int reps,
                        const std::function<double()>& call) {
    std::vector<double> speeds, times;
    for (int i = 0; i < reps; ++i) {
      if (gap_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(gap_s));
      const double s = timed_calls(calls, call, [&] { ctx_.rewind_to(depth_); });
      ctx_.rewind_to(depth_);
      // A sample of no time has no speed: NaN would reach the profile's file.
      if (!(s > 0) || !std::isfinite(s))
        throw EngineError(fmt::format("the engine timed a sample of {} calls at {} s", calls, s));
      times.push_back(s);
      speeds.push_back(static_cast<double>(tokens) * calls / s);
    }
    const Stats speed = Stats::of(speeds);
    return {tokens * calls, calls, gap_s, reps, Stats::of(times).median, speed.mean, speed.cv};
  }
  LiveContext& ctx_;
  std::vector<int32_t> tokens_;
  int depth_, base_, ubatch_;
};

std::string point_line(const char* what, const NoiseCurvePoint& p) {
  return fmt::format("{}: CV {:.1f}% ({} samples of {:.3g} s, {:.1f} t/s)", what, 100 * p.cv,
                     p.samples, p.median_s, p.mean_tps);
}

void measure_curves(Sampler& s, const NoiseMeasureOptions& o, NoiseProfile& p,
                    const std::function<void(const std::string&)>& progress) {
  const int base = o.tg_tokens.front();
  for (int t : o.tg_tokens) {
    p.tg.push_back(s.tg(t / base, 0, o.repetitions));
    progress(point_line(fmt::format("TG {} tokens", t).c_str(), p.tg.back()));
  }
  for (int u : o.pp_ubatches) {
    p.pp.push_back(s.pp(u, o.repetitions));
    progress(point_line(fmt::format("PP {} ubatch(es)", u).c_str(), p.pp.back()));
  }
  for (double g : o.gaps_s) {
    p.gaps.push_back(s.tg(o.gap_tg_tokens / base, g, o.repetitions));
    progress(point_line(fmt::format("TG {} tokens after {:g} s pauses", o.gap_tg_tokens, g).c_str(),
                        p.gaps.back()));
  }
}

void record_conditions(const NoiseReading& r, NoiseProfile& p) {
  p.load_1m = r.load_1m;
  p.steal_fraction = r.steal_fraction;
  p.others_fraction = r.others_fraction;
  p.seconds = r.wall_s;
}

}  // namespace

double noise_pause_seconds(const NoiseMeasureOptions& o) {
  double s = 0;
  for (double g : o.gaps_s) s += g * o.repetitions;
  return s;
}

NoiseProfile measure_noise_profile(const NoiseMeasureOptions& o,
                                   const std::function<void(const std::string&)>& progress) {
  check_noise_options(o);
  Plan plan = noise_plan(o);
  ModelGroup& mg = plan.models.at(0);
  const ContextGroup& cg = mg.contexts.at(0);
  if (!cg.invalid_reason.empty()) refuse(cg.invalid_reason, "a context the engine can run", "");
  mg.load.path = model_path(mg, plan.spec, progress);
  LoadedModel model(mg.load);
  LiveContext ctx(model, cg.params);
  ctx.set_threads(cg.threads.at(0));
  const int base = o.tg_tokens.front();
  Sampler sampler(ctx,
                  random_tokens(plan.spec.token_seed, model.facts().n_vocab,
                                static_cast<size_t>(o.depth + cg.n_prompt + base)),
                  o.depth, base, cg.n_prompt);
  NoiseProbe probe(std::vector<int>{},
                   std::vector<pid_t>{getpid(), static_cast<pid_t>(model.pid())});
  probe.start();
  sampler.warm_up();
  NoiseProfile p;
  measure_curves(sampler, o, p, progress);
  record_conditions(probe.finish(), p);
  p.machine_key = machine_key();
  p.cpu_model = cpu_info().model_name;
  p.measured_at = run_timestamp_now();
  p.engine = model.engine().kind + " " + model.engine().release;
  p.model = std::filesystem::path(mg.load.path).stem().string();
  p.threads = cg.threads.at(0).n_threads;
  p.depth = o.depth;
  p.n_ubatch = cg.n_prompt;
  p.repetitions = o.repetitions;
  return p;
}

}  // namespace moesweep
