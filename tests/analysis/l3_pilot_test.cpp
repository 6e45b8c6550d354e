// l3-run's choice of shape, on values: what a pilot's plan says (auto-l3's
// typed notes, not their prose), the figures a pilot takes from its points,
// and the ladder that stops at the first memory-bound shape with its span or
// ends in the verdict of the most memory-bound pilot.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <tuple>

#include "experiments/l3_pilot.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep {
namespace {

// The pilot's plan at a usable L3 of `l3` (MOESWEEP_L3_BYTES, restored after).
Plan pilot_plan(const L3Shape& shape, const char* l3) {
  ::setenv("MOESWEEP_L3_BYTES", l3, 1);
  L3RunSettings run;
  run.blocks = 1;
  const Plan plan = make_plan(spec_from_settings(l3_sweep_settings(shape, run, 0), "test"), 2);
  ::unsetenv("MOESWEEP_L3_BYTES");
  return plan;
}

TEST(L3Pilot, APlanWithItsSpanNamesTheLargestPool) {
  const L3Shape shape{256, 8, 1};
  const Plan plan = pilot_plan(shape, "3M");
  const PilotResult p = plan_pilot(shape, plan);
  EXPECT_TRUE(p.span_ok);
  EXPECT_EQ(p.plan_note.rfind("auto-l3 plans for 3.00 MiB", 0), 0u) << p.plan_note;
  int largest = 0;
  for (const ModelGroup& mg : plan.models) largest = std::max(largest, mg.knobs.experts);
  EXPECT_EQ(p.experts, largest);
  EXPECT_GT(p.expert_ff, 0);
  EXPECT_GT(p.moe_active_params, 0);
}

TEST(L3Pilot, NoExpertSizeGivesTheSpanInATinyCacheAndThePlanSaysSoInAField) {
  const L3Shape shape{1024, 8, 1};
  const Plan plan = pilot_plan(shape, "16K");
  ASSERT_FALSE(plan.auto_l3.empty());
  EXPECT_FALSE(plan.auto_l3.front().span_found);
  const PilotResult p = plan_pilot(shape, plan);
  EXPECT_FALSE(p.span_ok);
  EXPECT_EQ(p.experts, 0);
  EXPECT_NE(p.plan_note.find("no expert FFN"), std::string::npos) << p.plan_note;
  // The typed field decides, whatever the line says.
  Plan reworded = plan;
  for (AutoL3Note& n : reworded.auto_l3) n.line = "auto-l3: something else";
  EXPECT_FALSE(plan_pilot(shape, reworded).span_ok);
}

Record point_with_roofline(bool ok, double s_tg, double routed, double gbps) {
  Record r;
  r.ok = ok;
  r.tg.speed.mean = s_tg;
  PointRoofline& roof = r.extra.roofline.emplace();
  roof.routed_bytes_per_token = static_cast<uint64_t>(routed);
  roof.kernel_gemv_out_of_cache_gbps = gbps;
  return r;
}

TEST(L3Pilot, TheFiguresComeFromAMeasuredPointsRoofline) {
  PilotResult p;
  take_pilot_figures(point_with_roofline(true, 100, 4e6, 1.0), p);
  EXPECT_EQ(p.s_tg, 100);
  EXPECT_EQ(p.routed_bytes_per_token, 4e6);
  EXPECT_EQ(p.kernel_gbps, 1.0);
  EXPECT_DOUBLE_EQ(p.memory_bound_share, 100 * 4e6 / 1e9);
  take_pilot_figures(point_with_roofline(false, 1, 1, 1), p);  // a failed point: no figure
  Record bare;
  bare.ok = true;
  take_pilot_figures(bare, p);  // no roofline: no figure
  EXPECT_EQ(p.s_tg, 100);
}

// A test double for the pilot sweeps: each shape's memory-bound share and
// span as given, no engine.
struct StubPilots {
  explicit StubPilots(std::map<int, std::pair<double, bool>> shares)
      : by_hidden(std::move(shares)) {}
  std::map<int, std::pair<double, bool>> by_hidden;  // hidden -> (share, span)
  std::vector<int> asked;
  PilotResult operator()(const L3Shape& s) {
    asked.push_back(s.hidden);
    PilotResult p;
    p.shape = s;
    std::tie(p.memory_bound_share, p.span_ok) = by_hidden.at(s.hidden);
    p.s_tg = 1000 * p.memory_bound_share;
    p.routed_bytes_per_token = 1e6;
    p.kernel_gbps = 1;
    p.run_dir = "/runs/" + std::to_string(s.hidden);
    return p;
  }
};

TEST(L3Pilot, TheLadderStopsAtTheFirstMemoryBoundShapeWithItsSpan) {
  StubPilots stub{
      {{256, {0.9, false}}, {512, {0.3, true}}, {1024, {0.6, true}}, {2048, {0.8, true}}}};
  const std::vector<L3Shape> ladder = {{256, 8, 1}, {512, 8, 1}, {1024, 8, 1}, {2048, 8, 1}};
  std::vector<int> heard;
  const PilotLadder l = climb_l3_ladder(
      ladder, std::ref(stub), [&](const PilotResult& p) { heard.push_back(p.shape.hidden); });
  ASSERT_TRUE(l.chosen);
  EXPECT_EQ(l.chosen->shape.hidden, 1024);  // 256 lacks its span, 512 is compute-bound
  EXPECT_EQ(stub.asked, (std::vector<int>{256, 512, 1024}));
  EXPECT_EQ(heard, stub.asked);
  EXPECT_EQ(l.pilots.size(), 3u);
  EXPECT_EQ(l.best.shape.hidden, 256);  // the most memory-bound, span or not
}

TEST(L3Pilot, WithoutAMemoryBoundShapeTheVerdictNamesTheBestPilot) {
  StubPilots stub({{256, {0.2, true}}, {512, {0.4, true}}});
  const PilotLadder l = climb_l3_ladder({{256, 8, 1}, {512, 4, 2}}, std::ref(stub));
  EXPECT_FALSE(l.chosen);
  EXPECT_EQ(l.best.shape.hidden, 512);
  EXPECT_EQ(l.best.run_dir, "/runs/512");
  const std::string v = l.verdict(3 << 20);
  EXPECT_NE(v.find("cannot show a cache effect"), std::string::npos) << v;
  EXPECT_NE(v.find("hidden 512, 4 experts used, 2 threads"), std::string::npos) << v;
  EXPECT_NE(v.find("3.0 MiB usable cache"), std::string::npos) << v;
}

TEST(L3Pilot, APilotIsWrittenWithTheKeysOfL3Result) {
  PilotResult p;
  p.shape = {256, 8, 1};
  p.memory_bound_share = 0.7;
  p.run_dir = "/r";
  const nlohmann::json j = to_json(p);
  for (const char* key :
       {"shape", "span_ok", "plan", "experts", "expert_ff", "s_tg", "routed_bytes_per_token",
        "kernel_out_of_cache_gbps", "memory_bound_share", "run"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["memory_bound_share"], 0.7);
  EXPECT_EQ(j["run"], "/r");
}

}  // namespace
}  // namespace moesweep
