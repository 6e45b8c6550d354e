// A twin's disk, checked before it is built, and a build that stops on
// SIGTERM (issue 35, D21): an oversized twin is refused with its size and the
// free space (also in the dry run), and a stopped build removes its .tmp
// files and exits 130 instead of finishing or leaving them in the cache.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "model/twin_builder.hpp"
#include "model/twin_space.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

test::CommandResult in_cache(const fs::path& cache, const std::string& args) {
  return test::run_shell("MOESWEEP_CACHE_DIR='" + cache.string() + "' " +
                         std::string(test::cli_path()) + " " + args);
}

// Every file under `dir` whose name ends in `suffix`.
std::vector<fs::path> files_ending(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.path().string().ends_with(suffix)) out.push_back(e.path());
  return out;
}

TEST(TwinSpace, TheEstimateGrowsWithTheShapeAndABuildNeedsTheSkeletonBesideIt) {
  ShapeOverrides small, wide;
  wide.expert_ff = 100000000;
  const TwinSpec a = twin_spec_for("kimi-k2.5", "tiny", small, "Q4_K_S", 42);
  const TwinSpec b = twin_spec_for("kimi-k2.5", "tiny", wide, "Q4_K_S", 42);
  EXPECT_GT(estimated_twin_bytes(b), 1000 * estimated_twin_bytes(a));
  // Q4_K_S (4.58 bits) is quantized from a Q4_0 skeleton (4.5 bits): the peak
  // holds both, more than twice the file.
  EXPECT_GT(twin_build_peak_bytes(a), 2 * estimated_twin_bytes(a));
  const TwinSpaceCheck fits = check_twin_space({a}, test::scratch_dir());
  ASSERT_TRUE(fits.free.has_value());
  EXPECT_TRUE(fits.problem.empty()) << fits.problem;
  const TwinSpaceCheck huge = check_twin_space({b}, test::scratch_dir());
  EXPECT_GT(huge.needed, *huge.free);
  EXPECT_NE(huge.problem.find("GiB free"), std::string::npos) << huge.problem;
  // Two twins built one after the other: both files, one skeleton at a time.
  const TwinSpaceCheck two = check_twin_space({a, a}, test::scratch_dir());
  EXPECT_EQ(two.needed, twin_build_peak_bytes(a) + estimated_twin_bytes(a));
  EXPECT_EQ(gib_text(uint64_t{63060} << 30), "63,060 GiB");
  EXPECT_EQ(gib_text(uint64_t{1} << 29), "0.50 GiB");
}

// The probe's twin: 63,060 GiB. synth refuses it before writing a byte; the
// dry run of a sweep says it will not fit.
TEST(TwinSpace, ATwinLargerThanTheDiskIsRefusedBeforeItIsBuilt) {
  const fs::path cache = test::scratch_dir() / "cache";
  auto r = in_cache(cache, "synth --model kimi-k2.5 --scale tiny --expert-ff 100000000");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("on the disk of"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GiB free"), std::string::npos) << r.err;
  EXPECT_TRUE(files_ending(cache, ".tmp").empty());
  EXPECT_TRUE(files_ending(cache, ".gguf").empty());
  r = in_cache(cache,
               "sweep -m kimi-k2.5 --scale tiny --expert-ff 100000000 --depths 0 -c 512 -ub 64 "
               "-n 2 --dry-run --no-db");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("twins to build: 1, about "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: DOES NOT FIT ON DISK: building 1 twin needs about"),
            std::string::npos)
      << r.out;
  // A twin that fits is planned without the warning.
  r = in_cache(cache,
               "sweep -m kimi-k2.5 --scale tiny --depths 0 -c 512 -ub 64 -n 2 --dry-run "
               "--no-db");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("twins to build: 1, about "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DOES NOT FIT ON DISK"), std::string::npos) << r.out;
}

// SIGTERM while the skeleton is written: the build stops at the next 16 MiB,
// removes its .tmp files, caches nothing, and says so with exit 130.
TEST(TwinBuildStop, SigtermDuringTheBuildRemovesItsTemporaryFiles) {
  const fs::path dir = test::scratch_dir();
  const fs::path cache = dir / "cache";
  ::setenv("MOESWEEP_CACHE_DIR", cache.c_str(), 1);
  // About 300 MB of skeleton: long enough to be caught while it is written.
  const pid_t pid = test::spawn_cli(
      "synth --model kimi-k2.5 --scale tiny --layers 4 --hidden 1024 --experts 128 "
      "--expert-ff 1024 --quant Q4_K_S --seed 9",
      dir / "out", dir / "err");
  ::unsetenv("MOESWEEP_CACHE_DIR");
  // Ready once the skeleton's .tmp file exists: the build is writing.
  for (int i = 0; i < 12000 && files_ending(cache, ".skeleton.tmp").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(files_ending(cache, ".skeleton.tmp").empty()) << "the build never started";
  ::kill(pid, SIGTERM);
  const int code = test::wait_exit_code(pid, std::chrono::seconds(300));
  std::ifstream in(dir / "err");
  const std::string err((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(code, 130) << err;
  EXPECT_NE(err.find("the twin's build was interrupted"), std::string::npos) << err;
  EXPECT_TRUE(files_ending(cache, ".tmp").empty());
  EXPECT_TRUE(files_ending(cache, ".gguf").empty());
}

}  // namespace
}  // namespace moesweep
