// The working-set experiment's shapes and settings (issue 22): the ladder
// widens in the order the docs give, the settings plan the sweep they say,
// the dense twin is sized to the MoE twin's active parameters, and the
// memory-bound share is the arithmetic of report/working_set.hpp.
#include <gtest/gtest.h>

#include <set>

#include "model/model_profile.hpp"
#include "sweep/l3_shape.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep {
namespace {

TEST(L3Shape, TheLadderWidensThreadsThenExpertsUsedThenHidden) {
  const auto ladder = l3_shape_ladder(2);
  ASSERT_EQ(ladder.size(), 10u);
  EXPECT_EQ(ladder[0].text(), "hidden 256, 8 experts used, 1 thread");
  EXPECT_EQ(ladder[1].text(), "hidden 256, 8 experts used, 2 threads");
  EXPECT_EQ(ladder[2].text(), "hidden 256, 4 experts used, 1 thread");
  EXPECT_EQ(ladder[4].hidden, 512);
  EXPECT_EQ(ladder[9].text(), "hidden 1024, 8 experts used, 2 threads");
  EXPECT_EQ(l3_shape_ladder(1).size(), 5u);  // one core: no thread step
}

TEST(L3Shape, TheSettingsPlanBlocksOfTheAdaptedTwinsAndTheDenseTwin) {
  ::setenv("MOESWEEP_L3_BYTES", "3M", 1);
  L3RunSettings run;
  const auto settings = l3_sweep_settings({256, 8, 1}, run, 1024);
  const Plan plan = make_plan(spec_from_settings(settings, "test"), 2);
  ::unsetenv("MOESWEEP_L3_BYTES");
  int moe = 0, dense = 0;
  for (const ModelGroup& mg : plan.models) {
    EXPECT_GE(mg.block, 1);
    EXPECT_LE(mg.block, 3);
    (mg.choice.twin_profile == "llama3-70b" ? dense : moe)++;
  }
  EXPECT_EQ(dense, 3);    // once per block
  EXPECT_GE(moe, 3 * 8);  // >= 8 pool sizes per block
  EXPECT_EQ(plan.spec.twin_overrides.hidden, 256);
  EXPECT_EQ(plan.spec.repetitions, 5);
}

TEST(L3Shape, TheShippedProfilePlansTheSameExperimentForBothSkews) {
  ::setenv("MOESWEEP_L3_BYTES", "3M", 1);
  std::string origin;
  const SweepSpec spec =
      spec_from_settings(load_sweep_profile("l3-working-set", &origin), origin);
  const Plan plan = make_plan(spec, 2);
  ::unsetenv("MOESWEEP_L3_BYTES");
  EXPECT_EQ(spec.blocks, 3);
  std::set<std::pair<int, double>> twins;
  for (const ModelGroup& mg : plan.models) twins.insert({mg.knobs.experts, mg.knobs.routing_skew});
  EXPECT_EQ(plan.models.size(), 3 * twins.size());
  EXPECT_GE(twins.size(), 2u * 8);  // >= 8 pool sizes, 2 skews
}

TEST(L3Shape, TheDenseTwinMatchesTheActiveParameters) {
  const L3Shape shape{256, 8, 1};
  const int ff = dense_ff_matching(shape, 3.0e6);
  ShapeOverrides o;
  o.layers = 1, o.hidden = 256, o.heads = 2, o.vocab = 256, o.dense_ff = ff;
  const double active = static_cast<double>(
      count_params(scale_profile(load_model_profile("llama3-70b"), "tiny", o)).active);
  o.dense_ff = ff + 256;
  const double next = static_cast<double>(
      count_params(scale_profile(load_model_profile("llama3-70b"), "tiny", o)).active);
  EXPECT_LE(std::abs(active - 3.0e6), std::abs(next - active));  // within one step of 256
}

TEST(L3Shape, MemoryBoundShareIsTheExpertsTimeAtTheKernelsSpeed) {
  // 500 t/s x 1 MB per token = 0.5 GB/s of experts; a 1 GB/s kernel needs half the token.
  EXPECT_DOUBLE_EQ(memory_bound_share(500, 1e6, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(memory_bound_share(500, 1e6, 0), 0);
}

}  // namespace
}  // namespace moesweep
