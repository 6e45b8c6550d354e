// The fleet directory's files (report/fleet_files.hpp): fleet.md and
// fleet.json are written, the directory then reads as a fleet, and a fleet of
// mixed engine builds returns its warning to the caller (who prints it) as
// well as keeping it in fleet.md.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "report/fleet_files.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

FleetMember member(const std::string& host, const std::string& commit) {
  FleetMember m;
  m.meta =
      run_meta_from_json({{"schema_version", 3},
                          {"node", {{"host", host}, {"logical_cpus", 2}}},
                          {"build", {{"engine", {{"release", "v0.4.0"}, {"commit", commit}}}}}},
                         "test meta.json");
  return m;
}

TEST(FleetFiles, WritesBothFilesAndTheDirectoryThenReadsAsAFleet) {
  const auto dir = test::scratch_dir();
  EXPECT_FALSE(is_fleet_dir(dir));
  const std::string warning =
      write_fleet_files(dir, "plan-1", nlohmann::json::array(),
                        {member("a", "80fb11ac73"), member("b", "80fb11ac73")});
  EXPECT_EQ(warning, "");
  EXPECT_TRUE(is_fleet_dir(dir));
  const nlohmann::json index = read_json_file(dir / "fleet.json", "fleet index");
  EXPECT_EQ(index.at("plan_id"), "plan-1");
  EXPECT_EQ(index.at("table").size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(dir / "fleet.md"));
}

TEST(FleetFiles, MixedEngineBuildsComeBackAsTheWarningAndStayInFleetMd) {
  const auto dir = test::scratch_dir();
  const std::string warning =
      write_fleet_files(dir, "plan-1", nlohmann::json::array(),
                        {member("a", "80fb11ac73"), member("b", "1234567abc")});
  ASSERT_NE(warning, "");
  std::ifstream md(dir / "fleet.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(warning), std::string::npos) << text;
}

}  // namespace
}  // namespace moesweep
