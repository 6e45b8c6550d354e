// Cost and power (issue 23): tokens/s per $1000 and joules per token from a
// profile's public price and power, nothing where the profile has none; a
// price or power without its source is refused; `predict` puts seed 000's
// two sides (the 768 GB EPYC 9175F server and 4x H200) in one table.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "predict/cost_per_token.hpp"
#include "predict/decode_prediction.hpp"
#include "report/predict_table.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(CostPerToken, PerThousandDollarsAndJoulesPerToken) {
  HardwareProfile hw;
  hw.price_usd = 15000;
  hw.power_w = 320;
  const CostPerToken c = cost_per_token(hw, 12.0);
  EXPECT_DOUBLE_EQ(*c.tps_per_kusd, 12.0 / 15);
  EXPECT_DOUBLE_EQ(*c.joules_per_token, 320 / 12.0);
  EXPECT_FALSE(cost_per_token(HardwareProfile{}, 12.0).tps_per_kusd);
  EXPECT_FALSE(cost_per_token(HardwareProfile{}, 12.0).joules_per_token);
  EXPECT_FALSE(cost_per_token(hw, 0).tps_per_kusd);
}

TEST(CostPerToken, ShippedProfilesNameTheirSources) {
  const HardwareProfile cpu = load_hardware_profile("epyc-9175f");
  EXPECT_EQ(cpu.price_usd, 15000);
  EXPECT_NE(cpu.price_source.find("seeds 000"), std::string::npos);
  EXPECT_EQ(cpu.power_w, 320);
  const HardwareProfile gpu = load_hardware_profile("gpu-4x-h200");
  EXPECT_EQ(gpu.kind, "gpu");
  EXPECT_DOUBLE_EQ(gpu.theoretical_bandwidth_gbps(), 4 * 4800);
  EXPECT_GT(gpu.price_usd, cpu.price_usd);
  EXPECT_EQ(load_hardware_profile("epyc-9654").price_usd, 0) << "no public system price";
}

TEST(CostPerToken, AFigureWithoutItsSourceIsRefused) {
  const auto file = test::scratch_dir() / "box.json";
  std::ofstream(file) << R"({"memory": {"channels": 8, "mt_s": 4800}, "price_usd": 9000})";
  try {
    load_hardware_profile(file.string());
    FAIL() << "a price without a source was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("price_usd without its source"), std::string::npos) << e.problem();
  }
}

TEST(PredictTable, SeedZerosTwoSidesInOneTable) {
  std::vector<Prediction> all;
  for (const char* hw : {"epyc-9175f", "gpu-4x-h200"}) {
    PredictInputs in;
    in.hardware = hw;
    in.model = "kimi-k2.5";
    in.cpu_model_name = "a CPU no profile describes";
    all.push_back(predict_decode(in));
  }
  ASSERT_TRUE(all[0].expected_tps) << "the EPYC profile's reference runs calibrate it";
  EXPECT_FALSE(all[1].expected_tps) << "no GPU run to calibrate from: the roofline only";
  const std::string t = prediction_table(all);
  const double cpu_per_k = *all[0].expected_tps / 15.0, gpu_per_k = all[1].bound_tps / 175.0;
  EXPECT_NE(t.find(fmt::format(" {:.3f} |", cpu_per_k)), std::string::npos) << t;
  EXPECT_NE(t.find(fmt::format(" {:.3f} (roofline) |", gpu_per_k)), std::string::npos) << t;
  EXPECT_NE(t.find(fmt::format(" {:.1f} |", 320 / *all[0].expected_tps)), std::string::npos) << t;
  EXPECT_NE(t.find("- gpu-4x-h200: price $175000 (shared/seeds 000"), std::string::npos) << t;
}

TEST(PredictTable, TheCliComparesAListOfHardware) {
  const auto r = test::run_cli(
      "predict --hardware epyc-9175f,gpu-4x-h200,epyc-9654 --model kimi-k2.5 --quant Q4_K_S");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {" epyc-9175f |", " gpu-4x-h200 |", " epyc-9654 |"})
    EXPECT_NE(r.out.find(name), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("t/s per $1k"), std::string::npos);
  EXPECT_NE(r.out.find("epyc-9654: price no public figure"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace moesweep
