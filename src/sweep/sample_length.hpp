#pragma once
// How long each sample is (issue 31 §1): --min-sample-time S, like Google
// Benchmark's --benchmark_min_time. A sample of a phase is then not one
// engine call of -n (or -p) tokens but as many such calls as fill S seconds,
// each at the point's depth and rewound after it, their times summed. The
// tokens stay the plan's at the plan's depth (one long generation would
// drift deeper into the cache: its S_TG would be another N_KV's); a sample
// runs a whole number of calls, so of tokens: planned x calls, recorded as
// run beside the plan's (PhaseResult::tokens_run).
//
// The default comes from this machine's noise profile (hw/noise_profile.hpp,
// `moesweep hw --noise`): the time at which the CV of S_TG stops falling.
// Without a profile, or with --min-sample-time 0, a sample is one call: the
// plan's -n, as sweep-bench measures; --sample-time-without-profile S makes
// it S seconds where no profile is (a gate on a fresh CI runner: ci-ab).
//
// The number of calls is decided once per cell and phase -- by the first
// engine to reach it, from one untimed call -- and every engine of the cell
// follows it, so the samples of an ABBA pair are of the same length and
// their ratio means something (sweep/repetition_rule.hpp decides the
// repetitions the same way). A resumed run keeps the decisions its finished
// points recorded (tokens_run), so a pair split by the interruption does too.
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "hw/noise_profile.hpp"
#include "results/record.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

// The most calls one sample may take (a 1 ms call under a 10 s sample).
inline constexpr int kMaxCallsPerSample = 1000;

struct SampleTimeChoice {
  double seconds = 0;  // 0: one call per sample (fixed -n)
  std::string source;  // why, for meta.json and --dry-run
};

// spec.min_sample_time_s when given (>= 0); else the seconds the run to
// resume recorded; else the profile's advice; else
// spec.fallback_sample_time_s (0: one call). A plan with an exec
// engine (another program's benchmark, which runs its own -n) keeps one
// call, so its pairs stay alike: UserError when S was asked for.
SampleTimeChoice choose_min_sample_time(const Plan& plan,
                                        const std::optional<NoiseProfile>& profile,
                                        std::optional<double> recorded = std::nullopt);

// A run's choice and the profile behind it (RunSession's; meta.json's
// "sample_length" and "noise_profile").
struct RunSampleTime {
  SampleTimeChoice choice;
  std::optional<NoiseProfile> profile;  // this machine's, when measured and readable
  std::string profile_problem;          // why a damaged profile was passed over (not needed)
  nlohmann::json to_json() const;       // {"min_sample_time_s", "source"[, "profile_problem"]}
};
// Chooses as above with this machine's profile. A damaged or foreign profile
// is passed over (as if none were measured), its problem kept for the run's
// notes: one bad file must not stop every later sweep. `resumed`: the resumed run's meta.json
// "sample_length" (null when it started before there was one: one call, as then); nullptr for a new
// run.
RunSampleTime run_sample_time(const Plan& plan, const nlohmann::json* resumed);

// The calls that make a sample of at least `min_s` when one takes `call_s`:
// ceil(min_s / call_s), from 1 to kMaxCallsPerSample.
int calls_for_time(double min_s, double call_s);

// One sample: `calls` calls of `call` (each returns the seconds the engine
// timed), `rewind` between them (the caller rewinds, or keeps, the last);
// the seconds summed.
double timed_calls(int calls, const std::function<double()>& call,
                   const std::function<void()>& rewind);

class SampleLength {
 public:
  explicit SampleLength(double min_sample_s) : min_s_(min_sample_s) {}
  bool active() const { return min_s_ > 0; }
  double min_seconds() const { return min_s_; }
  // The calls per sample of `phase` ("pp", "tg") in the cell of `point`.
  // The first engine to ask runs `calibrate` (one untimed call; its seconds)
  // and decides; the others follow. 1 when not active (calibrate not run).
  int calls(const PlannedPoint& point, const std::string& phase,
            const std::function<double()>& calibrate);
  // The decisions the ok records of a resumed run took (tokens_run / the
  // plan's tokens, when whole), kept for their cells' remaining points.
  void keep_decisions_of(const std::vector<Record>& records);

 private:
  double min_s_ = 0;
  std::map<std::pair<std::string, std::string>, int> decided_;  // (cell, phase) -> calls
};

}  // namespace moesweep
