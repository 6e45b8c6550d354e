#include "sweep/sample_length.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "sweep/repetition_rule.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

const EngineChoice* exec_engine(const Plan& plan) {
  for (const EngineChoice& e : plan.engines)
    if (e.is_exec()) return &e;
  return nullptr;
}

// No usable profile: --sample-time-without-profile when given, else one call.
SampleTimeChoice without_profile(double fallback_s, const std::string& why) {
  if (fallback_s > 0)
    return {fallback_s, fmt::format("--sample-time-without-profile {:g} s: {} (`moesweep hw "
                                    "--noise` measures this machine's)",
                                    fallback_s, why)};
  return {0,
          fmt::format("one call of -n per sample: {} (`moesweep hw --noise` measures one)", why)};
}

SampleTimeChoice from_profile(const std::optional<NoiseProfile>& profile, double fallback_s) {
  if (!profile) return without_profile(fallback_s, "this machine has no noise profile");
  const SampleTimeAdvice a = recommended_sample_time(*profile);
  if (a.seconds <= 0)
    return without_profile(
        fallback_s, fmt::format("the noise profile of {} has too few TG lengths to show where "
                                "the CV stops falling",
                                profile->measured_at));
  return {a.seconds,
          fmt::format("this machine's noise profile ({}): the CV of S_TG stops falling at {} "
                      "tokens, {:.2g} s a sample ({:.1f}%{})",
                      profile->measured_at, a.tokens, a.seconds, 100 * a.cv,
                      a.still_falling ? ", still falling at the longest length measured" : "")};
}

}  // namespace

SampleTimeChoice choose_min_sample_time(const Plan& plan,
                                        const std::optional<NoiseProfile>& profile,
                                        std::optional<double> recorded) {
  const double given = plan.spec.min_sample_time_s;
  const EngineChoice* exec = exec_engine(plan);
  if (exec && given > 0)
    throw UserError(
        fmt::format("--min-sample-time {:g} with engine '{}', another program's benchmark", given,
                    exec->name),
        "engines whose samples moesweep times (an exec engine runs its own -n per sample, and "
        "the pairs of an ABBA sweep must be of one length)",
        "drop --min-sample-time (or pass 0), or sweep the exec engine on its own");
  if (given >= 0) return {given, "the sweep's --min-sample-time"};
  if (recorded) return {*recorded, "the run being resumed"};
  if (exec)
    return {0, fmt::format("one call of -n per sample: engine '{}' is another program's "
                           "benchmark, which runs its own -n",
                           exec->name)};
  return from_profile(profile, plan.spec.fallback_sample_time_s);
}

nlohmann::json RunSampleTime::to_json() const {
  nlohmann::json j = {{"min_sample_time_s", choice.seconds}, {"source", choice.source}};
  if (!profile_problem.empty()) j["profile_problem"] = profile_problem;
  return j;
}

RunSampleTime run_sample_time(const Plan& plan, const nlohmann::json* resumed) {
  RunSampleTime out;
  std::optional<double> before;
  if (resumed) before = 0;  // a run from before --min-sample-time: one call, as it began
  if (resumed && resumed->is_object()) {
    const auto it = resumed->find("min_sample_time_s");
    if (it != resumed->end() && it->is_number() && it->get<double>() >= 0 &&
        it->get<double>() <= kMaxMinSampleTime)
      before = it->get<double>();
  }
  try {
    out.profile = load_cached_noise_profile();
  } catch (const UserError& e) {
    // Said and passed over: a damaged file must not stop every later sweep.
    out.profile_problem = e.problem();
  }
  out.choice = choose_min_sample_time(plan, out.profile, before);
  if (!out.profile_problem.empty() && plan.spec.min_sample_time_s < 0 && !before)
    out.choice.source +=
        fmt::format(" (its noise profile is unreadable and was ignored: {})", out.profile_problem);
  return out;
}

int calls_for_time(double min_s, double call_s) {
  if (!(min_s > 0)) return 1;
  if (!(call_s > 0)) return kMaxCallsPerSample;
  const double calls = std::ceil(min_s / call_s);
  return calls >= kMaxCallsPerSample ? kMaxCallsPerSample : std::max(1, static_cast<int>(calls));
}

double timed_calls(int calls, const std::function<double()>& call,
                   const std::function<void()>& rewind) {
  double s = 0;
  for (int c = 0; c < calls; ++c) {
    if (c > 0) rewind();
    s += call();
  }
  return s;
}

int SampleLength::calls(const PlannedPoint& point, const std::string& phase,
                        const std::function<double()>& calibrate) {
  if (!active()) return 1;
  const auto key = std::make_pair(cell_key(point.params), phase);
  if (const auto it = decided_.find(key); it != decided_.end()) return it->second;
  const int n = calls_for_time(min_s_, calibrate());
  decided_[key] = n;
  return n;
}

void SampleLength::keep_decisions_of(const std::vector<Record>& records) {
  if (!active()) return;
  for (const Record& r : records) {
    if (!r.ok) continue;
    for (const auto& [phase, result, planned] :
         {std::tuple{"pp", &r.pp, r.params.pp}, std::tuple{"tg", &r.tg, r.params.tg}}) {
      if (planned <= 0 || result->tokens_run <= 0 || result->tokens_run % planned != 0) continue;
      const int calls = result->tokens_run / planned;
      if (calls <= kMaxCallsPerSample)
        decided_.emplace(std::make_pair(cell_key(r.params), std::string(phase)), calls);
    }
  }
}

}  // namespace moesweep
