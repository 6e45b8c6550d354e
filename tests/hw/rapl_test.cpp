// Package energy from a powercap tree laid out as the intel_rapl driver makes
// it (tests/data/powercap, see its README): package zones only (no subzones,
// no MMIO duplicate), wraps counted, and on this machine a number or the
// reason there is none.
#include "hw/rapl.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

const std::filesystem::path kPowercap = std::filesystem::path(MOESWEEP_TEST_DATA) / "powercap";

std::filesystem::path copy_of_tree() {
  const auto dir = test::scratch_dir() / "powercap";
  std::filesystem::copy(kPowercap, dir, std::filesystem::copy_options::recursive);
  return dir;
}

TEST(Rapl, PackageZonesOnlyAreRead) {
  const RaplMeter meter(kPowercap);
  ASSERT_TRUE(meter.available()) << meter.unavailable();
  ASSERT_EQ(meter.packages().size(), 2u);
  EXPECT_EQ(meter.packages()[0].name, "package-0");
  EXPECT_EQ(meter.packages()[1].name, "package-1");
  const auto now = meter.read();
  ASSERT_TRUE(now);
  EXPECT_EQ(*now, (std::vector<uint64_t>{123456789, 262143000000}));
}

TEST(Rapl, EnergyBetweenReadsSumsPackagesAndCountsAWrap) {
  const auto dir = copy_of_tree();
  const RaplMeter meter(dir);
  const auto before = meter.read();
  std::ofstream(dir / "intel-rapl:0" / "energy_uj") << 123456789 + 2'500'000 << "\n";
  std::ofstream(dir / "intel-rapl:1" / "energy_uj") << 171150 << "\n";  // wrapped: +500000 uJ
  const auto after = meter.read();
  ASSERT_TRUE(before && after);
  EXPECT_DOUBLE_EQ(meter.joules_between(*before, *after), 2.5 + 0.5);
}

TEST(Rapl, PhaseEnergyAccumulatesOverRepetitionsAndPerToken) {
  const auto dir = copy_of_tree();
  const RaplMeter meter(dir);
  PhaseEnergy phase(meter);
  for (int rep = 0; rep < 2; ++rep) {
    phase.begin();
    std::ofstream(dir / "intel-rapl:0" / "energy_uj") << 123456789 + (rep + 1) * 1'000'000 << "\n";
    phase.end();
  }
  const nlohmann::json j = phase.to_json(64);
  EXPECT_DOUBLE_EQ(j["package_energy_j"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["package_energy_j_per_token"].get<double>(), 2.0 / 64);
}

TEST(Rapl, NoZonesOrAnUnreadableCounterIsUnavailableWithAReason) {
  const RaplMeter none(test::scratch_dir() / "absent");
  EXPECT_FALSE(none.available());
  EXPECT_NE(none.unavailable().find("no RAPL package zone"), std::string::npos);
  PhaseEnergy phase(none);
  phase.begin();
  phase.end();
  EXPECT_NE(phase.to_json(8)["package_energy_j"]["unavailable"].get<std::string>().find("RAPL"),
            std::string::npos);

  const auto dir = copy_of_tree();
  std::filesystem::remove(dir / "intel-rapl:0" / "energy_uj");  // as unreadable as root-only
  const RaplMeter unreadable(dir);
  EXPECT_FALSE(unreadable.available());
  EXPECT_NE(unreadable.unavailable().find("root-only"), std::string::npos)
      << unreadable.unavailable();
}

TEST(Rapl, ThisMachineGivesANumberOrTheReason) {
  const RaplMeter meter;
  if (!meter.available()) {
    EXPECT_FALSE(meter.unavailable().empty());
    return;
  }
  const auto a = meter.read();
  ASSERT_TRUE(a);
  EXPECT_GE(meter.joules_between(*a, *meter.read()), 0.0);
}

}  // namespace
}  // namespace moesweep
