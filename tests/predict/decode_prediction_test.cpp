// The predict model on numbers: roofline = bandwidth / bytes per token, the
// calibrated efficiency from reference runs, and what a target speed needs.
#include <gtest/gtest.h>

#include <cmath>

#include "model/gguf_inspect.hpp"
#include "model/kv_cache.hpp"
#include "model/model_profile.hpp"
#include "predict/decode_prediction.hpp"
#include "results/file_sinks.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// No CPU matches this name: no figure measured here may enter the prediction.
constexpr const char* kElsewhere = "a CPU no hardware profile describes";

PredictInputs sizes_only() {
  PredictInputs in;
  in.hardware = "epyc-9175f";
  in.total_params = 1e12;
  in.active_params = 100e9;
  in.quant = "Q8_0";  // 8.5 bits per weight
  in.cpu_model_name = kElsewhere;
  return in;
}

TEST(PredictDecode, RooflineIsBandwidthOverActiveBytes) {
  PredictInputs in = sizes_only();
  in.bandwidth_gbps = 425;
  in.efficiency = 0.5;
  in.target_tps = 8;
  const Prediction p = predict_decode(in);
  EXPECT_DOUBLE_EQ(p.model.bytes_per_token, 100e9 * 8.5 / 8);  // 106.25 GB
  EXPECT_DOUBLE_EQ(p.model.total_bytes, 1e12 * 8.5 / 8);
  EXPECT_DOUBLE_EQ(p.model.kv_bytes, 0);
  EXPECT_EQ(p.bandwidth_source, "--bandwidth");
  EXPECT_DOUBLE_EQ(p.bound_tps, 4.0);  // 425e9 / 106.25e9
  ASSERT_TRUE(p.calibration);
  EXPECT_EQ(p.calibration->source, "--efficiency");
  EXPECT_DOUBLE_EQ(*p.expected_tps, 2.0);
  EXPECT_DOUBLE_EQ(p.required_gbps_at_roofline, 850);
  EXPECT_DOUBLE_EQ(p.required_gbps_at_efficiency, 1700);
  EXPECT_FALSE(p.this_machine);
}

TEST(PredictDecode, ElsewhereTheProfilesTheoreticalBandwidthCounts) {
  const Prediction p = predict_decode(sizes_only());
  EXPECT_EQ(p.bandwidth_source, "theoretical");
  EXPECT_DOUBLE_EQ(p.bandwidth_gbps, 12 * 6400 * 8 / 1000.0);  // 12 channels DDR5-6400
  EXPECT_DOUBLE_EQ(p.bound_tps, p.bandwidth_gbps * 1e9 / p.model.bytes_per_token);
}

// Kimi-K2.5 Q4_K_S at depth 8192 with a q8_0 cache on the EPYC 9175F profile,
// calibrated on the profile's reference runs of `reference_model` only.
PredictInputs kimi_on_9175f(const std::string& reference_model) {
  PredictInputs in;
  in.hardware = "epyc-9175f";
  in.model = "kimi-k2.5";
  in.quant = "Q4_K_S";
  in.depth = 8192;
  in.cache_type = "q8_0";
  in.reference_model = reference_model;
  in.cpu_model_name = kElsewhere;
  return in;
}

// A reference run predicts itself: same model, depth, cache and bandwidth give
// back the best measured decode speed of that run (12.94 t/s in the profile).
TEST(PredictDecode, ReferenceCalibrationReproducesTheReferenceRun) {
  const Prediction p = predict_decode(kimi_on_9175f("kimi-k2.5"));
  ASSERT_TRUE(p.calibration);
  EXPECT_NEAR(*p.expected_tps, 12.94, 1e-9);
  EXPECT_NEAR(p.calibration->efficiency, 12.94 / p.bound_tps, 1e-12);
  EXPECT_GT(p.calibration->efficiency, 0.0);
  EXPECT_LT(p.calibration->efficiency, 1.0);
  EXPECT_NE(p.calibration->source.find("reference runs"), std::string::npos);
}

// Kimi-K2.5 predicted from the profile's Llama-4-Scout runs alone lands in
// the range the field reports published for Kimi on that machine: 11.67 to
// 12.94 tok/s at 12..16 threads (a cross-check: no Kimi run enters the fit).
TEST(PredictDecode, KimiFromTheScoutCalibrationLandsInThePublishedRange) {
  const Prediction p = predict_decode(kimi_on_9175f("llama4-scout"));
  EXPECT_EQ(p.bandwidth_source, "theoretical");
  EXPECT_DOUBLE_EQ(p.bandwidth_gbps, 614.4);
  EXPECT_LT(p.model.total_bytes, p.hardware.memory_gb * 1e9);  // fits in 768 GB
  ASSERT_TRUE(p.calibration);
  ASSERT_TRUE(p.expected_tps);
  EXPECT_GT(*p.expected_tps, 11.0);
  EXPECT_LT(*p.expected_tps, 14.5);
  EXPECT_DOUBLE_EQ(*p.expected_tps, p.bound_tps * p.calibration->efficiency);
}

// A Kimi-K3-class model (2.8T total, 104B active) at Q4_K_S does not fit the
// 9175F's 768 GB, and one token per second needs its active bytes per second.
TEST(PredictDecode, TargetSpeedNeedsBytesPerTokenTimesTheSpeed) {
  PredictInputs in;
  in.hardware = "epyc-9175f";
  in.total_params = 2.8e12;
  in.active_params = 104e9;
  in.quant = "Q4_K_S";
  in.target_tps = 1;
  in.cpu_model_name = kElsewhere;
  const Prediction p = predict_decode(in);
  const double bpw = find_quant_type("Q4_K_S").approx_bpw;
  EXPECT_GT(p.model.total_bytes, p.hardware.memory_gb * 1e9);
  EXPECT_DOUBLE_EQ(p.model.bytes_per_token, 104e9 * bpw / 8);
  EXPECT_NEAR(p.required_gbps_at_roofline, 104e9 * bpw / 8 / 1e9, 1e-9);  // about 60 GB/s
}

TEST(PredictDecode, KvBytesGrowLinearlyWithDepthFromTheSharedFormula) {
  const QuantType& q = find_quant_type("Q4_K_S");
  const ModelCost shallow = cost_from_profile("kimi-k2.5", q, 0, "q8_0");
  const ModelCost deep = cost_from_profile("kimi-k2.5", q, 8192, "q8_0");
  EXPECT_DOUBLE_EQ(shallow.kv_bytes, 0);
  const ModelProfile profile = load_model_profile("kimi-k2.5");
  const ggml_type q8 = parse_cache_type("q8_0");
  const double per_token =
      static_cast<double>(kv_bytes_per_token(kv_shape_of(profile.shape), q8, q8));
  EXPECT_DOUBLE_EQ(deep.kv_bytes, per_token * 8192);
  EXPECT_DOUBLE_EQ(deep.bytes_per_token - shallow.bytes_per_token, deep.kv_bytes);
  const ParamCount c = count_params(profile);
  EXPECT_DOUBLE_EQ(shallow.bytes_per_token,
                   (static_cast<double>(c.active) + profile.shape.hidden) * 4.58 / 8);
}

TEST(PredictDecode, NoModelOrBothIsRefused) {
  PredictInputs none = sizes_only();
  none.active_params = 0;
  EXPECT_THROW(predict_decode(none), UserError);
  PredictInputs both = sizes_only();
  both.model = "kimi-k2.5";
  EXPECT_THROW(predict_decode(both), UserError);
}

// Issue 35, D10: the model refuses what the CLI's flags would let through
// from another caller (a fleet, a test), each with its flag named.
TEST(PredictDecode, InputsNoPredictionCanComeFromAreRefused) {
  const auto with = [](auto change) {
    PredictInputs in = sizes_only();
    change(in);
    return test::refused([&] { predict_decode(in); });
  };
  EXPECT_NE(with([](PredictInputs& in) { in.bandwidth_gbps = std::nan(""); }).find("--bandwidth"),
            std::string::npos);
  EXPECT_NE(with([](PredictInputs& in) { in.bandwidth_gbps = -5; }).find("--bandwidth -5"),
            std::string::npos);
  EXPECT_NE(with([](PredictInputs& in) { in.efficiency = 2; }).find("--efficiency 2"),
            std::string::npos);
  EXPECT_NE(with([](PredictInputs& in) { in.total_params = -1; }).find("--total-params -1"),
            std::string::npos);
  EXPECT_NE(with([](PredictInputs& in) { in.active_params = 2e12; }).find("above --total-params"),
            std::string::npos);
  EXPECT_NE(with([](PredictInputs& in) { in.target_tps = HUGE_VAL; }).find("--target-tps"),
            std::string::npos);
}

TEST(PredictDecode, MeasuredEfficienciesKeepOnlyMeasuredBandwidthPastTheCache) {
  const std::filesystem::path dir = test::scratch_dir();
  std::filesystem::create_directories(dir / "run");
  {
    JsonlSink sink(dir / "run" / "records.jsonl");
    auto add = [&](double eff, const char* source, double bytes, bool ok) {
      Record r;
      r.ok = ok;
      r.params.model_name = "m";
      PointRoofline& roof = r.extra.roofline.emplace();
      roof.efficiency_tg = eff, roof.bandwidth_source = source, roof.active_bytes_per_token = bytes;
      sink.point(r);
    };
    add(0.40, "measured", 2e9, true);     // kept
    add(0.90, "theoretical", 2e9, true);  // not this machine's bandwidth
    add(0.05, "measured", 1e6, true);     // decoded from cache
    add(0.70, "measured", 2e9, false);    // a failed point
    add(0.50, "measured", 3e9, true);     // kept
  }
  EXPECT_EQ(measured_efficiencies(dir.string(), 1e9), (std::vector<double>{0.40, 0.50}));
  EXPECT_TRUE(measured_efficiencies((dir / "none").string(), 1e9).empty());
}

}  // namespace
}  // namespace moesweep
