// The hw command end to end through the real CLI (predict's CLI tests are in
// tests/predict/predict_cli_test.cpp).
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

}  // namespace
}  // namespace moesweep
