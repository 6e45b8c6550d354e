// `moesweep predict` through the real CLI: its wording only (the figures are
// tested on predict_decode's values in decode_prediction_test.cpp). It runs
// against the shipped epyc-9175f profile, whose reference runs are the field
// reports' published tables, so its output is the same on any machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

// Issue 35, D10: numbers no prediction can come from are refused with exit 2
// and nothing predicted, never "nan tok/s", "200% of the roofline" or "-0 B".
TEST(PredictCli, NanNegativeAndOutOfRangeInputsAreRefused) {
  const std::string model = "predict --hardware epyc-9175f --model kimi-k2.5 ";
  const std::string sizes = "predict --hardware epyc-9175f ";
  const std::string cases[] = {
      model + "--bandwidth nan",
      model + "--bandwidth -5",
      model + "--bandwidth inf",
      model + "--efficiency 2",
      model + "--efficiency -1",
      model + "--efficiency nan",
      model + "--target-tps -1",
      sizes + "--total-params -1 --active-params 1e9",
      sizes + "--total-params 1e12 --active-params nan",
      sizes + "--total-params 1e9 --active-params 1e12",  // active above total
      sizes + "--total-params 1e12",                      // half a model
  };
  for (const std::string& c : cases) {
    const test::CommandResult r = test::run_cli(c);
    EXPECT_EQ(r.exit_code, 2) << c << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("tok/s"), std::string::npos) << c << "\n" << r.out;
    EXPECT_NE(r.err.find("expected: "), std::string::npos) << c << "\n" << r.err;
  }
}

// A hardware profile of the user's: all-zero reference speeds calibrate
// nothing (no 0 tok/s prediction), and an impossible power figure is refused.
TEST(PredictCli, ProfilesWithZeroSpeedsOrImpossibleFiguresAreRefused) {
  const std::filesystem::path dir = test::scratch_dir();
  std::ofstream(dir / "zero.json") << R"({"cores": 16, "memory": {"mt_s": 6400, "channels": 12},
    "reference_runs": [{"model": "kimi-k2.5", "quant": "Q4_K_S", "depth": 0,
                        "points": [{"speed_tg": 0}, {"speed_tg": 0}]}]})";
  test::CommandResult r =
      test::run_cli("predict --hardware '" + (dir / "zero.json").string() + "' --model kimi-k2.5");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("its reference runs give no decode speed"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("expected decode"), std::string::npos) << r.out;
  // --efficiency needs no reference run: the same profile then predicts.
  r = test::run_cli("predict --hardware '" + (dir / "zero.json").string() +
                    "' --model kimi-k2.5 --efficiency 0.5");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  std::ofstream(dir / "power.json") << R"({"cores": 16, "memory": {"mt_s": 6400, "channels": 12},
    "power_w": 1e308, "power_source": "a typo"})";
  r = test::run_cli("predict --hardware '" + (dir / "power.json").string() +
                    "' --model kimi-k2.5 --efficiency 0.5");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("field 'power_w' is 1e+308"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
