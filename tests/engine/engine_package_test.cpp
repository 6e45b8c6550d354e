// The prebuilt engine package as untrusted input: a package file whose sha256
// is not its pin, a library that is not the release the worker was built for
// (another SONAME behind the expected file name), and a package directory with
// no CPU backend for this CPU are each a clear error with exit 2, nothing
// written. Needs the prebuilt engine (scripts/setup's default); skipped, and
// said so, for a source-built engine.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/engine.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

const std::filesystem::path kSource = MOESWEEP_SOURCE_DIR;

// The prebuilt engine's library directory, or "" for a source-built engine.
std::filesystem::path prebuilt_lib_dir() {
  const std::string& lib = engine_facts().library;
  return lib.empty() ? std::filesystem::path() : std::filesystem::path(lib).parent_path();
}

TEST(EnginePackage, APackageFileWhoseSha256IsNotItsPinIsRefused) {
  const std::filesystem::path pinned =
      kSource / "third_party/downloads/node-llama-cpp-linux-x64-3.21.1.tgz";
  if (!std::filesystem::exists(pinned))
    GTEST_SKIP() << "no prebuilt package fetched (--engine source)";
  const std::filesystem::path dir = test::scratch_dir();
  std::filesystem::create_directories(dir / "downloads");
  std::filesystem::copy_file(pinned, dir / "downloads" / pinned.filename());
  {  // one byte changed inside the gzip stream
    std::fstream f(dir / "downloads" / pinned.filename(),
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    f.put('\x5a');
  }
  const test::CommandResult r =
      test::run_shell("MOESWEEP_DOWNLOADS='" + (dir / "downloads").string() + "' '" +
                      (kSource / "scripts/engine-fetch").string() + "' 3.21.1 '" +
                      (dir / "engine").string() + "' --prebuilt");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("sha256"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pinned at 4b5b65a8"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "engine" / "lib")) << "unpacked anyway";
}

TEST(EnginePackage, ALibraryOfAnotherReleaseBehindTheExpectedNameIsRefused) {
  const std::filesystem::path lib = prebuilt_lib_dir();
  if (lib.empty()) GTEST_SKIP() << "source-built engine: no package library to swap";
  if (test::run_shell("command -v patchelf").exit_code != 0) GTEST_SKIP() << "no patchelf";
  const std::filesystem::path dir = test::scratch_dir();
  const std::string name = std::filesystem::path(engine_facts().library).filename().string();
  std::filesystem::copy_file(lib / name, dir / name);
  // The same file name, but the library says it is another release.
  ASSERT_EQ(
      test::run_shell("patchelf --set-soname libllama.v9.9.9.so '" + (dir / name).string() + "'")
          .exit_code,
      0);
  const test::CommandResult r =
      test::run_shell("LD_LIBRARY_PATH='" + dir.string() + "' " + std::string(MOESWEEP_CLI) +
                      " sweep --profile default --depths 0 "
                      "-r 1 --no-db --quiet --out-dir '" +
                      (dir / "runs").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("libllama.v9.9.9.so"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not release"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "runs")) << "a run directory was written";
}

TEST(EnginePackage, NoCpuBackendForThisCpuIsRefused) {
  if (prebuilt_lib_dir().empty())
    GTEST_SKIP() << "source-built engine: its CPU backend is built in";
  const std::filesystem::path dir = test::scratch_dir();  // empty: no libggml-cpu-*.so at all
  const test::CommandResult r = test::run_shell(
      "MOESWEEP_ENGINE_BACKEND_DIR='" + dir.string() + "' " + std::string(MOESWEEP_CLI) +
      " sweep --profile default --depths 0 -r 1 --no-db --quiet --out-dir '" +
      (dir / "runs").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no CPU backend for this CPU"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "runs")) << "a run directory was written";
}

}  // namespace
}  // namespace moesweep
