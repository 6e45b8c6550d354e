// `moesweep hw --noise` end to end on the tiny twin, at its smallest (two
// short TG lengths, one and two ubatches, a 10 ms pause, 3 samples each): a
// well-formed profile comes out, is cached beside the other probes, `hw`
// shows it, a damaged one is reported (and `hw --noise` measures again), and
// options that cannot be measured are refused. No figure is asserted.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "hw/bandwidth_probe.hpp"
#include "hw/noise_profile.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

test::CommandResult hw(const fs::path& cache, const std::string& args) {
  return test::run_shell("MOESWEEP_CACHE_DIR='" + cache.string() + "' " + test::cli_path() +
                         " hw " + args);
}

const std::string kTiny = " --noise-tg 2,4 --noise-pp 1,2 --noise-gap-tg 4 --noise-repetitions 3 ";

std::string tiny_noise(const std::string& gaps = "0,0.01") {
  return "--noise --noise-model '" + test::tiny_twin().string() + "'" + kTiny + "--noise-gaps " +
         gaps + " ";
}

void expect_curve(const nlohmann::json& curve, const std::vector<int>& tokens) {
  ASSERT_EQ(curve.size(), tokens.size()) << curve.dump();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const nlohmann::json& p = curve[i];
    EXPECT_EQ(p["tokens"], tokens[i]) << p.dump();
    EXPECT_EQ(p["samples"], 3) << p.dump();
    EXPECT_GT(p["median_s"].get<double>(), 0) << p.dump();
    EXPECT_GT(p["mean_tps"].get<double>(), 0) << p.dump();
    EXPECT_GE(p["cv"].get<double>(), 0) << p.dump();
  }
}

TEST(HwNoise, ATinyRunGivesAWellFormedProfileCachedBesideTheOtherProbes) {
  const fs::path cache = test::scratch_dir() / "cache";
  const test::CommandResult r = hw(cache, tiny_noise() + "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json noise = nlohmann::json::parse(r.out).at("noise");
  EXPECT_EQ(noise["version"], kNoiseProfileVersion);
  EXPECT_EQ(noise["machine_key"], machine_key());
  EXPECT_EQ(noise["threads"], 1);
  EXPECT_EQ(noise["depth"], 0);
  EXPECT_EQ(noise["repetitions"], 3);
  expect_curve(noise["tg"], {2, 4});
  EXPECT_EQ(noise["tg"][1]["calls"], 2);  // a sample of 4 = two calls of 2, as a sweep takes it
  const int ub = noise["n_ubatch"].get<int>();
  expect_curve(noise["pp"], {ub, 2 * ub});
  expect_curve(noise["gaps"], {4, 4});
  EXPECT_EQ(noise["gaps"][1]["gap_s"], 0.01);
  EXPECT_NE(r.err.find("[hw --noise] TG 2 tokens: CV"), std::string::npos) << r.err;
  // Cached, and read back by the typed reader as this machine's.
  const fs::path file = cache / "hw" / noise_profile_path().filename();
  ASSERT_TRUE(fs::exists(file));
  const NoiseProfile p = read_noise_profile(file, machine_key());
  EXPECT_EQ(p.tg.size(), 2u);
  // `hw` shows it from the cache, with the sample time sweeps take from it.
  const test::CommandResult shown = hw(cache, "");
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("noise profile: "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("sample time: "), std::string::npos) << shown.out;
}

TEST(HwNoise, ADamagedProfileIsReportedAndMeasuredAgain) {
  const fs::path cache = test::scratch_dir() / "cache";
  fs::create_directories(cache / "hw");
  const fs::path file = cache / "hw" / noise_profile_path().filename();
  std::ofstream(file) << "{\"version\": 1, \"machine_key\": 7}";
  test::CommandResult r = hw(cache, "");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("noise profile: unusable: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hw --noise"), std::string::npos) << r.out;
  r = hw(cache, "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["noise"].contains("unavailable")) << r.out;
  r = hw(cache, tiny_noise("0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_noise_profile(file, machine_key()).gaps.size(), 1u);  // replaced
}

TEST(HwNoise, OptionsThatCannotBeMeasuredAreRefused) {
  const fs::path cache = test::scratch_dir() / "cache";
  for (const char* bad : {"--noise-tg 16,24", "--noise-tg 64,16", "--noise-tg 0",
                          "--noise-repetitions 1", "--noise-gaps=-1", "--noise-gaps soon",
                          "--noise-pp 0", "--noise-gap-tg 5 --noise-tg 2,4"}) {
    const test::CommandResult r = hw(cache, std::string("--noise ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("noise"), std::string::npos) << bad << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(cache / "hw")) << "nothing measured, nothing cached";
}

// Issue 44, items 3, 4 and 16: a pause curve of 0 tokens (NaN speeds), one
// of a billion tokens (ran on without end), a negative length (refused as
// "not a multiple"), and totals past any sensible measurement are refused
// before anything is said, built or measured.
TEST(HwNoise, EveryLengthCountAndTotalIsBoundedAndRefusedFirst) {
  const fs::path cache = test::scratch_dir() / "cache";
  const std::pair<const char*, const char*> cases[] = {
      {"--noise-gap-tg 0", "--noise-gap-tg 0 is 0"},
      {"--noise-gap-tg=-1", "--noise-gap-tg -1 is negative"},
      {"--noise-gap-tg 1000000000", "is above 65536"},
      {"--noise-tg 16,65536 --noise-repetitions 100", "TG tokens in all"},
      {"--noise-tg 1 --noise-gap-tg 1 --noise-pp 64 --noise-repetitions 1000",
       "PP ubatches in all"},
      {"--noise-gaps 60,60 --noise-repetitions 100", "s of pauses in all"}};
  for (const auto& [bad, says] : cases) {
    const test::CommandResult r = hw(cache, std::string("--noise ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << bad << ": " << r.err;
    EXPECT_EQ(r.err.find("not a multiple"), std::string::npos) << bad << ": " << r.err;
    EXPECT_EQ(r.out.find("measuring"), std::string::npos) << bad << ": " << r.out;
  }
  EXPECT_FALSE(fs::exists(cache)) << "nothing built, measured or cached";
}

}  // namespace
}  // namespace moesweep
