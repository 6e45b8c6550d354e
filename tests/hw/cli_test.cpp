// The hw command end to end through the real CLI (predict's CLI tests are in
// tests/predict/predict_cli_test.cpp).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>

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

// Issue 35, D11: NaN passed CLI11's range check (every comparison with NaN is
// false) and the probe grew without end; D23: the refusal printed DBL_MAX as a
// 309-digit number. Refused before anything is measured, limits compact.
TEST(HwCli, NanAndOutOfRangeProbeSizesAreRefusedBeforeMeasuring) {
  for (const char* bad : {"nan", "-nan", "inf", "-1", "0", "1e300", "2MiB", ""}) {
    const test::CommandResult r =
        test::run_cli(std::string("hw --cache --cache-max-mib '") + bad + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("measuring"), std::string::npos) << bad << "\n" << r.out;
    EXPECT_NE(r.err.find("--cache-max-mib"), std::string::npos) << bad << "\n" << r.err;
    EXPECT_FALSE(std::regex_search(r.err, std::regex("[0-9]{20}"))) << bad << "\n" << r.err;
  }
  const test::CommandResult r = test::run_cli("hw --bandwidth --seconds nan");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("value 'nan' is not a number"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("> 0 and <= 604800"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
