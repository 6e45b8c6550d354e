// `moesweep predict` through the real CLI: its wording only (the figures are
// tested on predict_decode's values in decode_prediction_test.cpp). It runs
// against the shipped epyc-9175f profile, whose reference runs are the field
// reports' published tables, so its output is the same on any machine.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

TEST(PredictCli, SaysTheBandwidthTheFitAndTheExpectedDecode) {
  const test::CommandResult r = test::run_cli(
      "predict --hardware epyc-9175f --model kimi-k2.5 --quant Q4_K_S --depth 8192 --cache-type "
      "q8_0 --reference-model llama4-scout");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"hardware: epyc-9175f - 614.4 GB/s (theoretical)\n", "fits in 768 GB",
        "decode upper bound (roofline): ", "% of the roofline, from ", "expected decode: "})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
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
