// The sweep's repetition rule (sweep/repetition_rule.hpp) on recorded samples:
// -r is the minimum and --max-repetitions the maximum; --target-mde adds
// repetitions until the cell could detect the target, and the engines of a
// cell follow one decision (so their turns stay paired); --max-time stops the
// extras. The sweep itself, engines and all, is in tests/engine/engine_axis_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "results/power.hpp"
#include "sweep/repetition_rule.hpp"

namespace moesweep {
namespace {

// Two engines x `cells` depths of one context, TG only.
Plan two_engine_plan(int cells, int r, int max_r, double target_mde, double max_time = 0) {
  Plan plan;
  plan.spec.repetitions = r;
  plan.spec.max_repetitions = max_r;
  plan.spec.target_mde_pct = target_mde;
  plan.spec.max_time_s = max_time;
  plan.spec.n_gen = 16;
  plan.engines.resize(2);
  plan.engines[0].name = "a";
  plan.engines[1].name = "b";
  plan.models.resize(1);
  plan.models[0].contexts.resize(1);
  plan.models[0].contexts[0].n_prompt = 0;
  for (size_t e = 0; e < 2; ++e)
    for (int c = 0; c < cells; ++c) {
      PlannedPoint p;
      p.index = static_cast<int>(plan.points.size());
      p.engine = e;
      p.depth = static_cast<size_t>(c);
      p.params.engine = plan.engines[e].name;
      p.params.n_kv = 64 * c;
      p.params.tg = 16;
      plan.points.push_back(p);
    }
  return plan;
}

Record with_tg(const std::vector<double>& tg) {
  Record r;
  r.tg.tokens_per_s = tg;
  return r;
}

TEST(RepetitionRule, MinimumAndMaximumWithoutTargets) {
  const Plan plan = two_engine_plan(1, 3, 20, 0);
  RepetitionRule rule(plan, RepetitionRule::Clock::now());
  const PlannedPoint& a = plan.points[0];
  EXPECT_TRUE(rule.more(a, with_tg({100, 101}), 2));
  EXPECT_FALSE(rule.more(a, with_tg({100, 101, 99}), 3));
  EXPECT_TRUE(rule.met(a, with_tg({100, 101, 99})));
  // one cell, TG only: one test, at the cells' half of alpha (compare's geomean+holm)
  EXPECT_DOUBLE_EQ(rule.alpha(), 0.025);
}

// ABBA: a takes repetition k, then b takes k and k+1, then a takes k+1 ... A
// decision after a's repetition k sees b's k-1: the pairs complete then.
TEST(RepetitionRule, TheEnginesOfACellFollowOneDecisionOnTheCompletePairs) {
  const Plan plan = two_engine_plan(2, 2, 12, 5);
  EXPECT_EQ(compared_tests(plan), 2);
  RepetitionRule rule(plan, RepetitionRule::Clock::now());
  const PlannedPoint &a = plan.points[0], &b = plan.points[2];
  ASSERT_EQ(cell_key(a.params), cell_key(b.params));
  std::vector<double> sa, sb;
  int done = 0;
  bool a_more = true, b_more = true;
  // Noisy pairs (10% swings of the pair, 0.5% within it): the pairs' log
  // ratios spread little, so a few pairs reach a 5% MDE though the speeds vary.
  const double swing[] = {1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.1};
  const double wobble[] = {1.0,   1.004, 0.997, 1.002, 0.998, 1.003,
                           0.999, 1.001, 1.0,   1.0,   1.0,   1.0};
  while (a_more || b_more) {
    ASSERT_LT(done, 12);
    sa.push_back(100 * swing[done]);
    a_more = rule.more(a, with_tg(sa), done + 1);
    sb.push_back(100 * swing[done] * wobble[done]);
    b_more = rule.more(b, with_tg(sb), done + 1);
    EXPECT_EQ(a_more, b_more) << "after " << done + 1;
    ++done;
  }
  EXPECT_GE(done, 3);   // the first decision past -r sees one pair only
  EXPECT_LT(done, 12);  // reached well before --max-repetitions
  EXPECT_TRUE(rule.met(a, with_tg(sa)));
  EXPECT_LE(mde_slowdown(rule.cell_mde(a, done)), 0.05);
  EXPECT_TRUE(std::isinf(rule.cell_mde(a, 1)));  // one pair: no spread, no MDE
}

TEST(RepetitionRule, AnUnreachableTargetStopsAtTheMaximumUnmet) {
  const Plan plan = two_engine_plan(1, 2, 5, 0.01);
  RepetitionRule rule(plan, RepetitionRule::Clock::now());
  const PlannedPoint &a = plan.points[0], &b = plan.points[1];
  std::vector<double> sa, sb;
  int done = 0;
  for (bool more = true; more; ++done) {
    sa.push_back(100 + 7 * std::sin(done));
    sb.push_back(100 + 7 * std::cos(done));
    more = rule.more(a, with_tg(sa), done + 1);
    EXPECT_EQ(rule.more(b, with_tg(sb), done + 1), more);
  }
  EXPECT_EQ(done, 5);
  EXPECT_FALSE(rule.met(a, with_tg(sa)));
}

TEST(RepetitionRule, MaxTimeStopsTheExtrasButNotTheMinimum) {
  const Plan plan = two_engine_plan(1, 3, 50, 0.01, 0.001);
  RepetitionRule rule(plan, RepetitionRule::Clock::now());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const PlannedPoint& a = plan.points[0];
  EXPECT_TRUE(rule.more(a, with_tg({100, 90}), 2));        // below -r: always
  EXPECT_FALSE(rule.more(a, with_tg({100, 90, 110}), 3));  // past --max-time: no extra
}

TEST(RepetitionRule, OneEngineComparesWithABaselineOfItsOwnSpread) {
  Plan plan = two_engine_plan(1, 2, 30, 5);
  plan.engines.resize(1);
  plan.points.resize(1);
  RepetitionRule rule(plan, RepetitionRule::Clock::now());
  const PlannedPoint& a = plan.points[0];
  // CV 1%: a handful of repetitions see 5%
  std::vector<double> s;
  int done = 0;
  for (bool more = true; more; ++done) {
    s.push_back(100 + (done % 2 ? 1 : -1));
    more = rule.more(a, with_tg(s), done + 1);
  }
  EXPECT_LT(done, 30);
  EXPECT_TRUE(rule.met(a, with_tg(s)));
}

}  // namespace
}  // namespace moesweep
