// l3-run --simulate's pieces that need no valgrind (experiments/l3_sim.hpp): the
// LL sizes it accepts, the sweeps it asks for, the model beside each point and
// what it prints when a point has no simulated count.
#include "experiments/l3_sim.hpp"

#include <gtest/gtest.h>

#include "hand_trace.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using nlohmann::json;

TEST(L3Sim, SizesFromACoresShareToAWholeSocket) {
  const std::vector<uint64_t> d = default_sim_llc_sizes();
  ASSERT_EQ(d.size(), 8u);
  EXPECT_EQ(d.front(), 4ull << 20);
  EXPECT_EQ(d.back(), 512ull << 20);
  EXPECT_EQ(parse_sim_llc("4MiB,32MiB,1GiB", "--sim-llc"),
            (std::vector<uint64_t>{4ull << 20, 32ull << 20, 1ull << 30}));
  // 3 MiB in 16-way sets of 64-byte lines is 3072 sets: valgrind takes powers of two only.
  test::refused([] { parse_sim_llc("3MiB", "--sim-llc"); });
  test::refused([] { parse_sim_llc("32MB", "--sim-llc"); });
  test::refused([] { parse_sim_llc("", "--sim-llc"); });
}

TEST(L3Sim, EachSizeIsOneSimulatedSweepAndTheTraceIsNative) {
  L3SimOptions o;
  const std::vector<L3SimTwin> twins = l3_sim_twins(o);
  ASSERT_EQ(twins.size(), 3u);  // skew 0, skew 1.5, dense
  EXPECT_TRUE(twins.back().dense);
  const int ff = sim_expert_ff(o);
  EXPECT_EQ(ff % 256, 0);
  // Three Q8_0 matrices of hidden x ff per expert, every expert: near the pool asked for.
  const double pool = 3.0 * o.hidden * ff * 34 / 32 * o.experts;
  EXPECT_NEAR(pool / static_cast<double>(o.pool_bytes), 1, 0.1);
  const json sim = l3_sim_settings(o, twins[1], ff, 0, 64ull << 20);
  EXPECT_EQ(sim.at("counters"), "sim");
  EXPECT_EQ(sim.at("sim-cache"), "LL=67108864B,16");
  EXPECT_EQ(sim.at("threads"), "1");  // sim counts are exact at one thread only
  EXPECT_EQ(sim.at("routing-skew"), "1.5");
  const json traced = l3_sim_settings(o, twins[1], ff, 0, 0);
  EXPECT_EQ(traced.at("counters"), "none");
  EXPECT_FALSE(traced.contains("sim-cache"));
  const json dense = l3_sim_settings(o, twins[2], ff, 4096, 64ull << 20);
  EXPECT_EQ(dense.at("dense-ff"), 4096);
  EXPECT_FALSE(dense.contains("experts"));
}

L3SimCurve curve_at(std::vector<uint64_t> sizes) {
  L3SimCurve c;
  for (uint64_t s : sizes) {
    L3SimPoint p;
    p.ll_bytes = s;
    c.points.push_back(p);
  }
  return c;
}

TEST(L3Sim, TheModelBesideEachPointFollowsItsCache) {
  // 4 experts of 1 MiB read in turn, a 3 MiB hot set: all of it fits 64 MiB,
  // and an LRU of 1 MiB keeps nothing a cycle of 7 MiB comes back to.
  std::vector<int> order;
  for (int i = 0; i < 200; ++i) order.push_back(i % 4);
  L3SimCurve c = curve_at({1ull << 20, 64ull << 20});
  add_trace_model(c, test::one_expert_per_token(order));
  EXPECT_EQ(c.hot_bytes, 3u << 20);
  EXPECT_EQ(c.routed_bytes_per_token, 1u << 20);
  ASSERT_TRUE(c.points[0].model_hit && c.points[1].model_hit);
  EXPECT_LT(*c.points[0].model_hit, 0.05);
  EXPECT_GT(*c.points[1].model_hit, 0.95);
  EXPECT_GT(*c.points[0].model_dram, 3.9 * (1 << 20));
  EXPECT_LT(*c.points[1].model_dram, 0.1 * (1 << 20));

  L3SimCurve dense = curve_at({4ull << 20, 8ull << 20});
  add_dense_model(dense, 6ull << 20);
  EXPECT_EQ(*dense.points[0].model_hit, 0);
  EXPECT_EQ(*dense.points[0].model_dram, 6.0 * (1 << 20));
  EXPECT_EQ(*dense.points[1].model_hit, 1);
}

TEST(L3Sim, APointWithoutSimulatedCountsSaysWhyAndIsNotDrawn) {
  L3SimCurve c = curve_at({4ull << 20, 8ull << 20});
  c.twin = {"MoE skew 0", 0, false};
  take_simulated(c.points[0], {{"ll_hit_rate", 0.25}, {"dram_bytes_per_token", 2e6}});
  take_simulated(c.points[1], {{"ll_hit_rate", {{"unavailable", "no callgrind dump came"}}},
                               {"dram_bytes_per_token", {{"unavailable", "no callgrind dump"}}}});
  EXPECT_EQ(*c.points[0].sim_hit, 0.25);
  EXPECT_FALSE(c.points[1].sim_hit);
  EXPECT_EQ(c.points[1].sim_unavailable, "no callgrind dump came");
  const std::string md = l3_sim_markdown({c}, "note");
  EXPECT_NE(md.find("| 4 MiB 16-way | 25.0% | 2.000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("n/a (no callgrind dump came)"), std::string::npos) << md;
  const json plot = l3_sim_plot_data({c});
  const json& engine = plot.at("xy").at(0).at("series").at(0);
  EXPECT_EQ(engine.at("x").size(), 1u);  // the point without a count is left out, not drawn as 0
  EXPECT_TRUE(plot["xy"][0].at("log_x").get<bool>());
  EXPECT_EQ(l3_sim_json({c}).at(0).at("points").at(1).at("sim_ll_hit_rate"), nullptr);
}

}  // namespace
}  // namespace moesweep
