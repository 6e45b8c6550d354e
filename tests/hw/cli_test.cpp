// The hw and predict commands end to end through the real CLI. predict runs
// against the shipped epyc-9175f profile, whose reference runs are the seeds'
// published tables, so its figures are fixed whatever machine runs the test.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

TEST(HwCli, JsonCarriesTopologyAndProfile) {
  const test::CommandResult r = test::run_cli("hw --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["topology"]["cores"].get<int>(), 1);
  EXPECT_TRUE(j["topology"].contains("l3_domains"));
  EXPECT_TRUE(j["cpu"].contains("hypervisor"));
  EXPECT_FALSE(j["hardware_profile"]["name"].get<std::string>().empty());
}

TEST(HwCli, ShowsAnotherMachinesProfile) {
  const test::CommandResult r = test::run_cli("hw --profile epyc-9175f");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("theoretical bandwidth: 614.4 GB/s (12 channels x DDR5-6400 x 8 B)"),
            std::string::npos)
      << r.out;
}

TEST(PredictCli, KimiFromTheScoutCalibrationMatchesTheSeeds) {
  const test::CommandResult r = test::run_cli(
      "predict --hardware epyc-9175f --model kimi-k2.5 --quant Q4_K_S --depth 8192 --cache-type "
      "q8_0 "
      "--reference-model llama4-scout");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("614.4 GB/s (theoretical)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fits in 768 GB"), std::string::npos) << r.out;
  // Published: 11.67 to 12.94 tok/s at 12..16 threads.
  const size_t at = r.out.find("expected decode: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double expected = std::stod(r.out.substr(at + 17));
  EXPECT_GT(expected, 11.0);
  EXPECT_LT(expected, 14.5);
}

TEST(PredictCli, KimiK3ClassNeedsForOneTokenPerSecond) {
  const test::CommandResult r = test::run_cli(
      "predict --hardware epyc-9175f --total-params 2.8e12 --active-params 104e9 --quant Q4_K_S "
      "--target-tps 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("does NOT fit in 768 GB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("for 1.00 tok/s: 60 GB/s at the roofline"), std::string::npos) << r.out;
}

TEST(PredictCli, NeedsAModel) {
  const test::CommandResult r = test::run_cli("predict --hardware epyc-9175f");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("predict needs a model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
