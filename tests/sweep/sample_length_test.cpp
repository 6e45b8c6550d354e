// How long a sample is (sweep/sample_length.hpp) and what a fixed -n costs
// (sweep/sample_cost.hpp), from hand-made noise profiles: the default comes
// from the profile, a flag or a resumed run wins, an exec engine keeps one
// call, the engines of a cell follow one decision. The sweep itself with
// --min-sample-time is in sample_time_sweep_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "results/power.hpp"
#include "support/noise_profiles.hpp"
#include "support/test_support.hpp"
#include "sweep/mde_estimate.hpp"
#include "sweep/sample_cost.hpp"
#include "sweep/sample_length.hpp"

namespace moesweep {
namespace {

using test::profile_with_cvs;

Plan plan_with(double min_sample_time, bool exec_engine = false) {
  Plan plan;
  plan.spec.min_sample_time_s = min_sample_time;
  plan.engines.resize(exec_engine ? 2 : 1);
  if (exec_engine) {
    plan.engines[1].name = "bench";
    plan.engines[1].exec = "/usr/bin/llama-bench";
  }
  return plan;
}

TEST(SampleLength, CallsFillTheMinimumTime) {
  EXPECT_EQ(calls_for_time(1.0, 0.03), 34);  // 33.3 calls: the next whole one
  EXPECT_EQ(calls_for_time(1.0, 0.25), 4);
  EXPECT_EQ(calls_for_time(1.0, 2.0), 1);  // one call is long enough already
  EXPECT_EQ(calls_for_time(0, 0.01), 1);   // off: one call, sweep-bench's sample
  EXPECT_EQ(calls_for_time(10, 1e-6), kMaxCallsPerSample);
  EXPECT_EQ(calls_for_time(1, 0), kMaxCallsPerSample);  // an untimeable call: the cap
}

TEST(SampleLength, TheDefaultIsTheProfilesAndAFlagOrAResumedRunWins) {
  const NoiseProfile profile = profile_with_cvs({0.18, 0.06, 0.09, 0.08});
  SampleTimeChoice c = choose_min_sample_time(plan_with(-1), profile);
  EXPECT_DOUBLE_EQ(c.seconds, 0.064);
  EXPECT_NE(c.source.find("noise profile"), std::string::npos) << c.source;
  EXPECT_NE(c.source.find("64 tokens"), std::string::npos) << c.source;
  EXPECT_DOUBLE_EQ(choose_min_sample_time(plan_with(0.5), profile).seconds, 0.5);
  EXPECT_DOUBLE_EQ(choose_min_sample_time(plan_with(0), profile).seconds, 0);  // a fixed -n
  EXPECT_DOUBLE_EQ(choose_min_sample_time(plan_with(-1), profile, 0.25).seconds, 0.25);
  c = choose_min_sample_time(plan_with(-1), std::nullopt);
  EXPECT_EQ(c.seconds, 0);
  EXPECT_NE(c.source.find("hw --noise"), std::string::npos) << c.source;
  EXPECT_EQ(choose_min_sample_time(plan_with(-1), profile_with_cvs({0.1})).seconds, 0);
}

// A machine without a usable profile (a fresh CI runner): the plan's
// --sample-time-without-profile (ci-ab's 0.8 s) where given; a profile, a
// flag, a resumed run and an exec engine still decide before it.
TEST(SampleLength, WithoutAProfileTheFallbackTimeIsTakenAndSaysWhy) {
  Plan plan = plan_with(-1);
  plan.spec.fallback_sample_time_s = 0.8;
  SampleTimeChoice c = choose_min_sample_time(plan, std::nullopt);
  EXPECT_DOUBLE_EQ(c.seconds, 0.8);
  EXPECT_NE(c.source.find("--sample-time-without-profile 0.8 s: this machine has no noise"),
            std::string::npos)
      << c.source;
  EXPECT_DOUBLE_EQ(choose_min_sample_time(plan, profile_with_cvs({0.1})).seconds, 0.8);
  EXPECT_DOUBLE_EQ(choose_min_sample_time(plan, profile_with_cvs({0.18, 0.06, 0.09, 0.08})).seconds,
                   0.064);
  EXPECT_DOUBLE_EQ(choose_min_sample_time(plan, std::nullopt, 0.25).seconds, 0.25);
  plan.spec.min_sample_time_s = 0;
  EXPECT_DOUBLE_EQ(choose_min_sample_time(plan, std::nullopt).seconds, 0);
}

TEST(SampleLength, AnExecEngineKeepsOneCallAndRefusesAnAskedTime) {
  const NoiseProfile profile = profile_with_cvs({0.18, 0.06, 0.09, 0.08});
  const SampleTimeChoice c = choose_min_sample_time(plan_with(-1, true), profile);
  EXPECT_EQ(c.seconds, 0);
  EXPECT_NE(c.source.find("'bench'"), std::string::npos) << c.source;
  const std::string why =
      test::refused([&] { choose_min_sample_time(plan_with(1, true), profile); });
  EXPECT_NE(why.find("bench"), std::string::npos) << why;
  EXPECT_EQ(choose_min_sample_time(plan_with(0, true), profile).seconds, 0);
}

// A resumed run keeps the length it began with, whatever the profile says now.
TEST(SampleLength, AResumedRunKeepsTheLengthItBeganWith) {
  const char* old = std::getenv("MOESWEEP_CACHE_DIR");
  const std::string was = old ? old : "";
  setenv("MOESWEEP_CACHE_DIR", test::scratch_dir().c_str(), 1);  // no profile here
  const nlohmann::json recorded = {{"min_sample_time_s", 0.3}, {"source", "..."}};
  const RunSampleTime resumed = run_sample_time(plan_with(-1), &recorded);
  EXPECT_DOUBLE_EQ(resumed.choice.seconds, 0.3);
  EXPECT_EQ(resumed.choice.source, "the run being resumed");
  const nlohmann::json none;  // begun before --min-sample-time: one call, as then
  EXPECT_EQ(run_sample_time(plan_with(-1), &none).choice.seconds, 0);
  const nlohmann::json hostile = {{"min_sample_time_s", 1e9}};
  EXPECT_EQ(run_sample_time(plan_with(-1), &hostile).choice.seconds, 0);
  const RunSampleTime fresh = run_sample_time(plan_with(-1), nullptr);
  EXPECT_EQ(fresh.choice.seconds, 0);
  EXPECT_FALSE(fresh.profile);
  EXPECT_EQ(fresh.to_json()["min_sample_time_s"], 0);
  if (was.empty())
    unsetenv("MOESWEEP_CACHE_DIR");
  else
    setenv("MOESWEEP_CACHE_DIR", was.c_str(), 1);
}

PlannedPoint point_on(size_t engine, const std::string& name, int n_kv) {
  PlannedPoint p;
  p.engine = engine;
  p.params.engine = name;
  p.params.n_kv = n_kv;
  p.params.tg = 32;
  p.params.pp = 64;
  return p;
}

TEST(SampleLength, TheEnginesOfACellFollowTheFirstOnesCalibration) {
  SampleLength lengths(1.0);
  int calibrations = 0;
  auto takes = [&](double s) {
    return [&calibrations, s] {
      ++calibrations;
      return s;
    };
  };
  const PlannedPoint a = point_on(0, "a", 0), b = point_on(1, "b", 0),
                     deeper = point_on(0, "a", 512);
  EXPECT_EQ(lengths.calls(a, "tg", takes(0.1)), 10);
  EXPECT_EQ(lengths.calls(b, "tg", takes(0.5)), 10);  // b follows a: the pair stays alike
  EXPECT_EQ(lengths.calls(a, "tg", takes(0.5)), 10);  // and so do a's later repetitions
  EXPECT_EQ(calibrations, 1);
  EXPECT_EQ(lengths.calls(b, "pp", takes(0.3)), 4);       // each phase its own decision
  EXPECT_EQ(lengths.calls(deeper, "tg", takes(0.2)), 5);  // each cell too
  EXPECT_EQ(calibrations, 3);
  SampleLength off(0);
  EXPECT_EQ(off.calls(a, "tg", takes(0.1)), 1);
  EXPECT_EQ(calibrations, 3);  // nothing to decide: no untimed call
}

// A resumed run: the cells its finished points decided keep their calls (the
// records' tokens_run / the plan's tokens), so the engine whose turn the
// interruption cut off takes samples of its partner's length; no calibration.
TEST(SampleLength, AResumedRunKeepsTheCallsItsRecordsTook) {
  Record done;
  done.params = point_on(0, "a", 0).params;
  done.tg.tokens_run = 32 * 7;
  done.pp.tokens_run = 64 * 3;
  Record torn = done;  // not whole calls of the plan's: ignored
  torn.params.n_kv = 512;
  torn.tg.tokens_run = 33;
  Record failed = done;
  failed.ok = false;
  failed.params.n_kv = 1024;
  SampleLength lengths(1.0);
  lengths.keep_decisions_of({done, torn, failed});
  const auto never = [] {
    ADD_FAILURE() << "a kept decision was calibrated again";
    return 0.1;
  };
  EXPECT_EQ(lengths.calls(point_on(1, "b", 0), "tg", never), 7);
  EXPECT_EQ(lengths.calls(point_on(1, "b", 0), "pp", never), 3);
  EXPECT_EQ(lengths.calls(point_on(1, "b", 512), "tg", [] { return 0.5; }), 2);
  EXPECT_EQ(lengths.calls(point_on(1, "b", 1024), "tg", [] { return 0.25; }), 4);
  SampleLength off(0);  // one call: nothing kept, nothing decided
  off.keep_decisions_of({done});
  EXPECT_EQ(off.calls(point_on(1, "b", 0), "tg", never), 1);
}

TEST(SampleLength, TimedCallsRewindBetweenCallsOnly) {
  int calls = 0, rewinds = 0;
  const double s = timed_calls(
      3, [&] { return ++calls * 0.5; }, [&] { ++rewinds; });
  EXPECT_DOUBLE_EQ(s, 3.0);  // 0.5 + 1 + 1.5
  EXPECT_EQ(rewinds, 2);     // the caller rewinds (or keeps) the last
}

TEST(SampleCost, AShortFixedSampleSaysWhatItCostsInDetectableChange) {
  const NoiseProfile profile = profile_with_cvs({0.20, 0.10, 0.05, 0.05});  // stops at 256 tokens
  const double alpha = 0.05;
  const std::optional<SampleLengthCost> c = sample_length_cost(profile, 0.032, 5, false, alpha);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->cv, 0.15, 1e-12);  // half way between 16 and 64 ms on log time
  EXPECT_DOUBLE_EQ(c->recommended_s, 0.256);
  EXPECT_DOUBLE_EQ(c->recommended_cv, 0.05);
  EXPECT_DOUBLE_EQ(c->mde, mde_slowdown(0.15 * unit_mde(false, 5, alpha)));
  EXPECT_DOUBLE_EQ(c->recommended_mde, mde_slowdown(0.05 * unit_mde(false, 5, alpha)));
  EXPECT_GT(c->mde, c->recommended_mde);
  const std::string text = sample_length_cost_text(*c, 32);
  EXPECT_NE(text.find("32 tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("15.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("--min-sample-time 0.26"), std::string::npos) << text;
  // Samples as long as the profile recommends cost nothing it can show.
  EXPECT_FALSE(sample_length_cost(profile, 0.3, 5, false, alpha));
  EXPECT_FALSE(sample_length_cost(profile_with_cvs({0.1}), 0.001, 5, false, alpha));
  // Paired: the pairs' test at the same CVs.
  const auto paired = sample_length_cost(profile, 0.032, 5, true, alpha);
  ASSERT_TRUE(paired);
  EXPECT_DOUBLE_EQ(paired->mde, mde_slowdown(0.15 * unit_mde(true, 5, alpha)));
}

TEST(SampleCost, TheMedianSampleCountsEveryCallOfIt) {
  Record one, three, failed;
  one.params.tg = 32;
  one.tg.seconds = {0.01, 0.02, 0.03};
  three.params.tg = 32;
  three.tg.tokens_run = 96;  // three calls a sample
  three.tg.seconds = {0.01, 0.01};
  failed.ok = false;
  failed.params.tg = 32;
  failed.tg.seconds = {9};
  EXPECT_NEAR(*median_tg_sample_seconds({one, three, failed}), 0.03, 1e-12);
  EXPECT_FALSE(median_tg_sample_seconds({failed}));
}

}  // namespace
}  // namespace moesweep
