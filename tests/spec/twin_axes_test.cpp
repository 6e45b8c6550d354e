// The twin axes of a sweep (issue 11): --experts (a list or auto-l3),
// --expert-ff and --routing-skew make one twin per combination, each a model
// group of the plan; points carry the values asked for; a dense twin or a GGUF
// file is measured once; keys of points without the axes are unchanged.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <set>

#include "model/quant_types.hpp"
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
  const Plan plan = make_plan(spec_of({{"experts", "auto-l3:0.25-4"},
                                       {"expert-ff", "2048"},
                                       {"scale", "l3"},
                                       {"quant", "Q4_0"}}),
                              4);
  ::unsetenv("MOESWEEP_L3_BYTES");
  ASSERT_EQ(plan.models.size(), 5u);
  // kimi-k2.5 at scale l3: one expert is 3 x 1024 x 2048 weights at 4.5 bits = 3.375 MiB.
  const double expert_mib = 3.0 * 1024 * 2048 * 4.5 / 8 / (1024 * 1024);
  for (size_t i = 0; i < plan.models.size(); ++i) {
    const double ratio = plan.models[i].knobs.experts * expert_mib / 256;
    EXPECT_NEAR(ratio, 0.25 * (1 << i), 0.25 * (1 << i) * 0.1) << i;
  }
}

TEST(ExpertsAutoL3, PointsPerDoublingAfterASlash) {
  EXPECT_EQ(parse_experts_auto_l3("auto-l3:0.125-8/4", "t").per_doubling, 4);
  EXPECT_EQ(parse_experts_auto_l3("auto-l3:0.125-8", "t").per_doubling, 1);
  for (const char* bad :
       {"auto-l3:0.125-8/0", "auto-l3:0.125-8/2.5", "auto-l3:1-2/x", "auto-l3:1-2/99"})
    EXPECT_THROW(parse_experts_auto_l3(bad, "t"), UserError) << bad;
  const uint64_t mib = 1 << 20;
  // 1 MiB experts, 32 MiB L3, 4 per doubling from 1/8x: 4, 5 (4.76), 6 (5.66), 7 (6.73), 8 ...
  const auto counts =
      experts_for_l3(parse_experts_auto_l3("auto-l3:0.125-1/4", "t"), 32 * mib, mib, 2);
  EXPECT_EQ(counts, (std::vector<int>{4, 5, 6, 7, 8, 10, 11, 13, 16, 19, 23, 27, 32}));
}

TEST(ExpertsAutoL3, SpanCoverageCountsPointsInTheSpanAndInTheCache) {
  const uint64_t mib = 1 << 20;
  // 1 MiB experts against 8 MiB: 1 (1/8x) ... 64 (8x) in span, 1..8 in the cache.
  const SpanCoverage c = span_coverage({1, 2, 4, 8, 16, 64, 65}, 8 * mib, mib);
  EXPECT_EQ(c.in_span, 6);
  EXPECT_EQ(c.in_cache, 4);
  EXPECT_FALSE(span_coverage({9, 10, 11, 12, 16, 20, 30, 40}, 8 * mib, mib).enough());
}

TEST(ExpertsAutoL3, TheExpertSizeAdaptsToTheCache) {
  ::setenv("MOESWEEP_L3_BYTES", "3M", 1);
  const Plan plan = make_plan(spec_of({{"model", "qwen3-moe"},
                                       {"quant", "Q8_0"},
                                       {"layers", "1"},
                                       {"hidden", "256"},
                                       {"heads", "2"},
                                       {"vocab", "256"},
                                       {"experts-used", "8"},
                                       {"experts", "auto-l3:0.125-8/4"}}),
                              4);
  ::unsetenv("MOESWEEP_L3_BYTES");
  ASSERT_GE(plan.models.size(), 8u);
  const int ff = plan.models[0].knobs.expert_ff;
  EXPECT_GE(ff, 256);
  EXPECT_EQ(ff % 256, 0);
  // The largest FFN with >= 8 points in 1/8x..8x and >= 3 at or below 1x.
  const double bpw = find_quant_type("Q8_0").approx_bpw;
  auto bytes = [&](int f) { return static_cast<uint64_t>(3.0 * 256 * f * bpw / 8); };
  const ExpertsAutoL3 range = parse_experts_auto_l3("auto-l3:0.125-8/4", "t");
  const uint64_t l3 = 3 << 20;
  auto coverage = [&](int f) {
    return span_coverage(experts_for_l3(range, l3, bytes(f), 8), l3, bytes(f));
  };
  EXPECT_TRUE(coverage(ff).enough());
  EXPECT_FALSE(coverage(ff + 256).enough());
  for (const ModelGroup& mg : plan.models) EXPECT_EQ(mg.knobs.expert_ff, ff);
  ASSERT_FALSE(plan.warnings.empty());
  EXPECT_NE(plan.warnings[0].find("auto-l3 plans for 3.00 MiB (MOESWEEP_L3_BYTES"),
            std::string::npos)
      << plan.warnings[0];
}

TEST(Blocks, EveryTwinOncePerBlockEachBlockInItsOwnSeededOrder) {
  const auto order = block_order(6, 3, 11);
  ASSERT_EQ(order.size(), 18u);
  std::vector<std::vector<size_t>> blocks(3);
  for (const auto& [twin, block] : order) blocks.at(static_cast<size_t>(block - 1)).push_back(twin);
  for (auto b : blocks) {
    std::sort(b.begin(), b.end());
    EXPECT_EQ(b, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
  }
  EXPECT_NE(blocks[0], blocks[1]);  // (6! orders: equal by chance once in 720)
  EXPECT_EQ(block_order(6, 3, 11), order);
  EXPECT_NE(block_order(6, 3, 12), order);
  const auto plain = block_order(3, 1, 11);
  EXPECT_EQ(plain, (std::vector<std::pair<size_t, int>>{{0, 0}, {1, 0}, {2, 0}}));
}

TEST(Blocks, APlanMeasuresEachTwinInEveryBlockWithDistinctKeys) {
  const Plan plan = make_plan(spec_of({{"experts", "8,16,32"}, {"blocks", 3}}), 4);
  ASSERT_EQ(plan.models.size(), 9u);
  std::set<std::pair<int, int>> seen;
  std::set<std::string> keys;
  for (const ModelGroup& mg : plan.models) seen.insert({mg.knobs.experts, mg.block});
  for (const PlannedPoint& p : plan.points) keys.insert(p.params.key_string());
  EXPECT_EQ(seen.size(), 9u);
  EXPECT_EQ(keys.size(), plan.points.size());
  EXPECT_NE(plan.points.front().params.key_string().find("block="), std::string::npos);
  EXPECT_THROW(spec_of({{"blocks", 5000}}), UserError);
}

}  // namespace
}  // namespace moesweep
