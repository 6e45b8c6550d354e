// Routing skew of twins (issue 11): the Zipf targets a skew asks for, the
// calibration of deepseek2's selection bias and of the other archs' router row
// scales against the N(0,1)-logit model, and the dense reference profile.
#include <gtest/gtest.h>

#include <numeric>

#include "model/model_profile.hpp"
#include "model/twin_routing.hpp"
#include "model/twin_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(ZipfSelectionTargets, SumToExpertsUsedAndNeverExceedOnePerExpert) {
  for (double s : {0.0, 0.5, 1.0, 1.5, 3.0}) {
    SCOPED_TRACE(s);
    const std::vector<double> f = zipf_selection_targets(16, 4, s);
    ASSERT_EQ(f.size(), 16u);
    EXPECT_NEAR(sum(f), 4.0, 1e-9);
    for (size_t e = 1; e < f.size(); ++e) EXPECT_LE(f[e], f[e - 1] + 1e-12);
    for (double x : f) EXPECT_LE(x, 1.0 + 1e-12);
  }
  // s = 0: every expert 4 of 16 tokens; s = 1.5: the first expert is capped at every token.
  EXPECT_NEAR(zipf_selection_targets(16, 4, 0)[7], 0.25, 1e-9);
  EXPECT_NEAR(zipf_selection_targets(16, 4, 1.5)[0], 1.0, 1e-9);
  // Below the cap the shape is (e+1)^-s: expert 8 against expert 16 at s = 1.
  const std::vector<double> f1 = zipf_selection_targets(64, 2, 1.0);
  EXPECT_NEAR(f1[7] / f1[15], 2.0, 1e-9);
}

ModelProfile twin_profile(const std::string& name, int64_t experts, int64_t used) {
  ShapeOverrides o;
  o.experts = experts;
  o.experts_used = used;
  return scale_profile(load_model_profile(name), "tiny", o);
}

TEST(CalibrateRoutingSkew, Deepseek2BiasFollowsTheZipfTargets) {
  const ModelProfile p = twin_profile("kimi-k2.5", 32, 4);
  const RoutingSkew r = calibrate_routing_skew(p, 1.0);
  ASSERT_EQ(r.bias.size(), 32u);
  EXPECT_TRUE(r.row_scale.empty());
  ASSERT_EQ(r.modelled.size(), 32u);
  EXPECT_NEAR(sum(r.modelled), 4.0, 1e-9);  // every token picks exactly k experts
  for (size_t e : {0u, 1u, 3u, 7u, 15u, 31u})
    EXPECT_NEAR(r.modelled[e], r.target[e], 0.05 + 0.15 * r.target[e]) << "expert " << e;
  EXPECT_GT(r.bias[0], r.bias[31]);  // popular experts get the larger bias
}

TEST(CalibrateRoutingSkew, OtherArchsScaleRouterRowsAndConcentrateWithS) {
  const ModelProfile p = twin_profile("qwen3-moe", 32, 4);
  const RoutingSkew mild = calibrate_routing_skew(p, 0.5);
  const RoutingSkew steep = calibrate_routing_skew(p, 1.5);
  ASSERT_EQ(steep.row_scale.size(), 32u);
  EXPECT_TRUE(steep.bias.empty());
  EXPECT_GT(steep.row_scale[0], steep.row_scale[31]);
  // The top eighth of the experts takes a larger share as s rises.
  const auto top_share = [](const std::vector<double>& f) {
    return (f[0] + f[1] + f[2] + f[3]) / sum(f);
  };
  EXPECT_GT(top_share(mild.modelled), 4.0 / 32 + 0.05);
  EXPECT_GT(top_share(steep.modelled), top_share(mild.modelled) + 0.05);
}

TEST(CalibrateRoutingSkew, IsDeterministic) {
  const ModelProfile p = twin_profile("kimi-k2.5", 16, 2);
  EXPECT_EQ(calibrate_routing_skew(p, 1.5).bias, calibrate_routing_skew(p, 1.5).bias);
}

TEST(TwinSpecRoutingSkew, OnlySkewedTwinsChangeTheirCacheKey) {
  const TwinSpec plain = twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_K_S", 42);
  const TwinSpec zero = twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_K_S", 42, 0.0);
  const TwinSpec skewed = twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_K_S", 42, 1.5);
  EXPECT_EQ(plain.cache_key(), zero.cache_key());
  EXPECT_FALSE(plain.to_json().contains("routing_skew"));
  EXPECT_NE(plain.cache_key(), skewed.cache_key());
  EXPECT_EQ(skewed.to_json()["routing_skew"], 1.5);
}

TEST(TwinSpecRoutingSkew, IsRefusedForDenseTwinsAndOutOfRange) {
  EXPECT_THROW(twin_spec_for("llama3-70b", "tiny", {}, "Q4_0", 42, 1.0), UserError);
  EXPECT_THROW(twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_0", 42, -1.0), UserError);
  EXPECT_THROW(twin_spec_for("kimi-k2.5", "tiny", {}, "Q4_0", 42, 100.0), UserError);
}

TEST(DenseTwin, Llama3ProfileIsDenseAndIgnoresExpertOverrides) {
  ShapeOverrides o;
  o.experts = 64;
  o.experts_used = 4;
  const ModelProfile p = scale_profile(load_model_profile("llama3-70b"), "tiny", o);
  EXPECT_EQ(p.arch, "llama");
  EXPECT_EQ(p.shape.experts, 0);
  EXPECT_EQ(p.shape.experts_used, 0);
  const ParamCount c = count_params(p);
  EXPECT_EQ(c.routed_experts, 0);
  EXPECT_GT(c.dense_ffn, 0);
}

// The l3-working-set pair: the dense twin reads about as many weight bytes
// per token as the MoE twin it is the reference for (same quant).
TEST(DenseTwin, L3PresetMatchesTheMoeTwinsActiveParameters) {
  const ParamCount moe = count_params(scale_profile(load_model_profile("kimi-k2.5"), "l3", {}));
  const ParamCount dense = count_params(scale_profile(load_model_profile("llama3-70b"), "l3", {}));
  const double ratio = static_cast<double>(dense.active) / static_cast<double>(moe.active);
  EXPECT_NEAR(ratio, 1.0, 0.05) << "dense " << dense.active << " moe " << moe.active;
}

}  // namespace
}  // namespace moesweep
