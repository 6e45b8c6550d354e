// The noise profile as a value and a file (hw/noise_profile.hpp): where the
// CV stops falling on hand-made profiles, the CV at a sample time between
// the measured lengths, and the reader on good, bad and hostile files (the
// file is ours but untrusted: typed, bounded, versioned, this machine's).
// The measurement itself, engine and all, is in noise_cli_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "hw/bandwidth_probe.hpp"
#include "hw/noise_profile.hpp"
#include "support/noise_profiles.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

using test::profile_with_cvs;

TEST(NoiseProfile, TheSampleTimeIsWhereTheCvStopsFalling) {
  // The N_KV 512 column: 18%, 6%, 9%, 8%: 64 tokens is as good as any longer.
  const SampleTimeAdvice a = recommended_sample_time(profile_with_cvs({0.18, 0.06, 0.09, 0.08}));
  EXPECT_EQ(a.tokens, 64);
  EXPECT_DOUBLE_EQ(a.seconds, 0.064);
  EXPECT_DOUBLE_EQ(a.best_cv, 0.06);
  EXPECT_FALSE(a.still_falling);
  // Within 25% (or one point) of the best counts as stopped: 7.4% against 6%.
  EXPECT_EQ(recommended_sample_time(profile_with_cvs({0.21, 0.074, 0.06, 0.065})).tokens, 64);
  EXPECT_EQ(recommended_sample_time(profile_with_cvs({0.21, 0.11, 0.075, 0.065})).tokens, 256);
}

TEST(NoiseProfile, ACurveStillFallingAtItsLongestLengthSaysSo) {
  // The N_KV 0 column: 21%, 11%, 10%, 6%.
  const SampleTimeAdvice a = recommended_sample_time(profile_with_cvs({0.21, 0.11, 0.10, 0.06}));
  EXPECT_EQ(a.tokens, 1024);
  EXPECT_TRUE(a.still_falling);
}

TEST(NoiseProfile, OneLengthCannotShowATrend) {
  EXPECT_EQ(recommended_sample_time(profile_with_cvs({0.1})).seconds, 0);
  EXPECT_EQ(recommended_sample_time(NoiseProfile{}).seconds, 0);
}

TEST(NoiseProfile, TheCvBetweenLengthsIsInterpolatedOnLogTime) {
  const NoiseProfile p = profile_with_cvs({0.20, 0.10});  // 16 ms, 64 ms
  EXPECT_DOUBLE_EQ(*cv_at_seconds(p.tg, 0.016), 0.20);
  EXPECT_NEAR(*cv_at_seconds(p.tg, 0.032), 0.15, 1e-12);  // half way on log time
  EXPECT_DOUBLE_EQ(*cv_at_seconds(p.tg, 0.001), 0.20);    // before the first: its CV
  EXPECT_DOUBLE_EQ(*cv_at_seconds(p.tg, 10), 0.10);       // beyond the last: its CV
  EXPECT_FALSE(cv_at_seconds({}, 1));
}

TEST(NoiseProfile, JsonRoundTripKeepsEveryField) {
  NoiseProfile p = profile_with_cvs({0.2, 0.1, 0.05});
  p.cpu_model = "AMD EPYC";
  p.engine = "llama.cpp v0.4.0";
  p.model = "kimi-k2.5-tiny";
  p.threads = 2;
  p.depth = 512;
  p.n_ubatch = 512;
  p.repetitions = 10;
  p.seconds = 61.5;
  p.pp.push_back({1024, 2, 0, 10, 0.2, 5000, 0.04});
  p.gaps.push_back({64, 4, 1.5, 10, 0.07, 900, 0.12});
  p.load_1m = 1.25;
  p.others_fraction = 0.02;
  const nlohmann::json j = to_json(p);
  EXPECT_EQ(j["recommended"]["tg_tokens"], 256);
  const NoiseProfile q = noise_profile_from_json(j, "test");
  EXPECT_EQ(to_json(q), j);
  EXPECT_FALSE(q.steal_fraction);
  EXPECT_DOUBLE_EQ(q.gaps.at(0).gap_s, 1.5);
}

// Each must be refused with the fix: measure again.
void expect_refused(const nlohmann::json& j, const std::string& says) {
  try {
    noise_profile_from_json(j, "test profile");
    ADD_FAILURE() << "accepted: " << j.dump();
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find(says), std::string::npos) << e.problem();
    EXPECT_NE(e.fix().find("hw --noise"), std::string::npos) << e.fix();
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST(NoiseProfile, BadProfilesAreRefusedWithTheFieldAndTheFix) {
  const nlohmann::json good = to_json(profile_with_cvs({0.2, 0.1}));
  auto with = [&](const nlohmann::json::json_pointer& at, const nlohmann::json& v) {
    nlohmann::json j = good;
    j[at] = v;
    return j;
  };
  expect_refused(nlohmann::json::array(), "the file");
  expect_refused(with("/version"_json_pointer, 2), "version");
  expect_refused(with("/version"_json_pointer, "1"), "version");
  nlohmann::json no_version = good;
  no_version.erase("version");
  expect_refused(no_version, "version");
  expect_refused(with("/machine_key"_json_pointer, ""), "machine_key");
  expect_refused(with("/tg/0/cv"_json_pointer, -0.1), "tg[0].cv");
  expect_refused(with("/tg/0/cv"_json_pointer, "0.1"), "tg[0].cv");
  expect_refused(with("/tg/1/samples"_json_pointer, 1), "tg[1].samples");
  expect_refused(with("/tg/1/tokens"_json_pointer, 4294967297.0), "tg[1].tokens");
  expect_refused(with("/tg/0/median_s"_json_pointer, 0), "median_s");
  expect_refused(with("/tg/0/mean_tps"_json_pointer, 1e300), "mean_tps");
  expect_refused(with("/pp"_json_pointer, "many"), "pp");
  expect_refused(with("/gaps"_json_pointer, nlohmann::json::array({1})), "gaps[0]");
  expect_refused(with("/conditions/load_1m"_json_pointer, "high"), "conditions.load_1m");
  nlohmann::json missing_cv = good;
  missing_cv["tg"][0].erase("cv");
  expect_refused(missing_cv, "tg[0].cv");
  nlohmann::json many = good;
  many["tg"] = nlohmann::json::array();
  for (size_t i = 0; i <= kMaxNoiseCurvePoints; ++i) many["tg"].push_back(good["tg"][0]);
  expect_refused(many, "field 'tg'");  // expected: at most 64 points
}

class NoiseProfileFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir();
    const char* old = std::getenv("MOESWEEP_CACHE_DIR");
    old_ = old ? old : "";
    setenv("MOESWEEP_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (old_.empty())
      unsetenv("MOESWEEP_CACHE_DIR");
    else
      setenv("MOESWEEP_CACHE_DIR", old_.c_str(), 1);
  }
  void write(const std::string& text) {
    fs::create_directories(noise_profile_path().parent_path());
    std::ofstream(noise_profile_path()) << text;
  }
  fs::path dir_;
  std::string old_;
};

TEST_F(NoiseProfileFile, SavedBesideTheOtherProbesAndReadBack) {
  EXPECT_FALSE(load_cached_noise_profile());  // never measured here
  const fs::path path = noise_profile_path();
  EXPECT_EQ(path.parent_path(), dir_ / "hw");
  EXPECT_NE(path.filename().string().find("noise-v1-" + machine_key()), std::string::npos);
  NoiseProfile p = profile_with_cvs({0.2, 0.1});
  p.machine_key = machine_key();
  save_cached_noise_profile(p);
  const std::optional<NoiseProfile> back = load_cached_noise_profile();
  ASSERT_TRUE(back);
  EXPECT_EQ(to_json(*back), to_json(p));
}

// Issue 44, item 3: a profile with a NaN (a sample of no time) wrote nulls
// that every later sweep then refused. Only a profile that reads back is cached.
TEST_F(NoiseProfileFile, AProfileThatWouldNotReadBackIsNotCached) {
  NoiseProfile p = profile_with_cvs({0.2, 0.1});
  p.machine_key = machine_key();
  p.gaps.push_back(p.tg[0]);
  p.gaps[0].mean_tps = std::nan("");
  EXPECT_NE(test::refused([&] { save_cached_noise_profile(p); }).find("was not cached"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(noise_profile_path()));
}

TEST_F(NoiseProfileFile, DamagedForeignAndHostileFilesAreRefusedNotCrashedOn) {
  NoiseProfile p = profile_with_cvs({0.2, 0.1});
  p.machine_key = "another machine";
  write(to_json(p).dump());
  EXPECT_NE(test::refused([] { load_cached_noise_profile(); }).find("another machine"),
            std::string::npos);
  write("{\"version\": 1, \"tg\": [");  // torn
  EXPECT_NE(test::refused([] { load_cached_noise_profile(); }).find("noise profile"),
            std::string::npos);
  write(std::string(100000, '[') + std::string(100000, ']'));  // nested past any file of ours
  test::refused([] { load_cached_noise_profile(); });
  write("{\"pad\": \"" + std::string(2 << 20, 'x') + "\"}");  // over 1 MiB
  test::refused([] { load_cached_noise_profile(); });
  fs::remove(noise_profile_path());
  fs::create_symlink("/dev/zero", noise_profile_path());  // endless
  test::refused([] { load_cached_noise_profile(); });
  fs::remove(noise_profile_path());
  fs::create_symlink(dir_ / "nowhere", noise_profile_path());  // dangling
  test::refused([] { load_cached_noise_profile(); });
  fs::remove(noise_profile_path());
  fs::create_directory(noise_profile_path());  // not a file
  test::refused([] { load_cached_noise_profile(); });
  fs::remove(noise_profile_path());
  ASSERT_EQ(mkfifo(noise_profile_path().c_str(), 0600), 0);  // would block a plain read
  test::refused([] { load_cached_noise_profile(); });
}

}  // namespace
}  // namespace moesweep
