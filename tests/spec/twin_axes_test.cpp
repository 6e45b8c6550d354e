// The twin axes of a sweep (issue 11): --experts (a list or auto-l3),
// --expert-ff and --routing-skew make one twin per combination, each a model
// group of the plan; points carry the values asked for; a dense twin or a GGUF
// file is measured once; keys of points without the axes are unchanged.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>

#include "results/point_fields.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_spec.hpp"
#include "sweep/twin_axes.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using Settings = std::map<std::string, nlohmann::json>;

SweepSpec spec_of(Settings s) {
  s["depths"] = "0";
  s["ctx-size"] = "256";
  s["ubatch-size"] = "64";
  s["n-gen"] = "4";
  return spec_from_settings(s, "test");
}

TEST(TwinAxes, EachCombinationIsAModelGroupWithItsOwnTwin) {
  const Plan plan = make_plan(spec_of({{"experts", "8,16"}, {"routing-skew", "0,1.5"}}), 4);
  ASSERT_EQ(plan.models.size(), 4u);
  std::set<std::string> names;
  for (const PlannedPoint& p : plan.points) names.insert(p.params.model_name);
  EXPECT_EQ(names.size(), 4u);  // four twins, four cache files
  EXPECT_EQ(plan.models[0].knobs.experts, 8);
  EXPECT_EQ(plan.models[0].knobs.routing_skew, 0);
  EXPECT_EQ(plan.models[1].knobs.routing_skew, 1.5);
  EXPECT_EQ(plan.models[3].knobs.experts, 16);
  const PointParams& last = plan.points.back().params;
  EXPECT_EQ(last.experts, 16);
  EXPECT_EQ(last.routing_skew, 1.5);
  EXPECT_NE(last.key_string().find("experts=16"), std::string::npos) << last.key_string();
  EXPECT_NE(last.key_string().find("skew=1.5"), std::string::npos) << last.key_string();
}

TEST(TwinAxes, PointsWithoutTheAxesKeepTheirKeys) {
  const Plan plan = make_plan(spec_of({}), 4);
  ASSERT_EQ(plan.models.size(), 1u);
  const std::string key = plan.points[0].params.key_string();
  EXPECT_EQ(key.find("experts="), std::string::npos) << key;
  EXPECT_EQ(key.find("skew="), std::string::npos) << key;
  EXPECT_EQ(key.find("expert_ff="), std::string::npos) << key;
}

TEST(TwinAxes, DenseTwinsAndFilesAreMeasuredOnceWithAWarning) {
  const Plan plan = make_plan(
      spec_of({{"model", "kimi-k2.5,llama3-70b"}, {"experts", "8,16"}, {"quant", "Q4_0"}}), 4);
  ASSERT_EQ(plan.models.size(), 3u);
  EXPECT_EQ(plan.models[2].choice.twin_profile, "llama3-70b");
  EXPECT_EQ(plan.models[2].knobs.experts, 0);
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_NE(plan.warnings[0].find("dense twin 'llama3-70b'"), std::string::npos);
}

TEST(TwinAxes, BadValuesAreRefusedNamingTheFlag) {
  for (const Settings& s : {Settings{{"routing-skew", "-1"}}, Settings{{"routing-skew", "steep"}},
                            Settings{{"experts", "0"}}, Settings{{"experts", "auto-l3:4-1"}},
                            Settings{{"experts", "auto-l3:x"}}, Settings{{"expert-ff", "0"}}}) {
    SCOPED_TRACE(s.begin()->second.dump());
    try {
      spec_of(s);
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("--" + s.begin()->first), std::string::npos) << e.what();
    }
  }
}

TEST(ExpertsForL3, DoublesFromLoToHiTimesTheL3) {
  const uint64_t mib = 1024 * 1024;
  // One expert is 1 MiB: 0.25 x 32 MiB = 8 experts, ..., 16 x 32 MiB = 512.
  EXPECT_EQ(experts_for_l3({0.25, 16}, 32 * mib, mib, 4),
            (std::vector<int>{8, 16, 32, 64, 128, 256, 512}));
  // Never fewer than experts-used + 1, never beyond the engine's limit; no duplicates.
  EXPECT_EQ(experts_for_l3({0.01, 0.02}, 32 * mib, mib, 4), std::vector<int>{5});
  EXPECT_EQ(experts_for_l3({64, 128}, 32 * mib, mib, 4), std::vector<int>{1024});
}

TEST(ExpertsForL3, AutoL3PlansForTheL3GivenInTheEnvironment) {
  ::setenv("MOESWEEP_L3_BYTES", "256M", 1);
  const Plan plan =
      make_plan(spec_of({{"experts", "auto-l3:0.25-4"}, {"scale", "l3"}, {"quant", "Q4_0"}}), 4);
  ::unsetenv("MOESWEEP_L3_BYTES");
  ASSERT_EQ(plan.models.size(), 5u);
  // kimi-k2.5 at scale l3: one expert is 3 x 1024 x 2048 weights at 4.5 bits = 3.375 MiB.
  const double expert_mib = 3.0 * 1024 * 2048 * 4.5 / 8 / (1024 * 1024);
  for (size_t i = 0; i < plan.models.size(); ++i) {
    const double ratio = plan.models[i].knobs.experts * expert_mib / 256;
    EXPECT_NEAR(ratio, 0.25 * (1 << i), 0.25 * (1 << i) * 0.1) << i;
  }
}

}  // namespace
}  // namespace moesweep
