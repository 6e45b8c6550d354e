// A temporary folder is owned (issue 44, item 8): removed with its owner,
// and one a killed process left (SIGKILL, a second Ctrl-C: nothing runs) is
// removed by the next folder of its kind this user makes, never another
// user's, a live process's, or a link.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "support/test_support.hpp"
#include "util/temporary_folder.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

TEST(TemporaryFolder, RemovedWithItsOwnerAndWhatAKilledOneLeftByTheNext) {
  const fs::path tmp = test::scratch_dir() / "tmp";
  fs::create_directories(tmp / "moesweep-test-999999999-dead01" / "inside");  // no such process
  fs::create_directories(tmp / fmt::format("moesweep-test-{}-live01", ::getppid()));  // running
  fs::create_directories(tmp / "moesweep-other-999999999-dead02");  // another prefix
  fs::create_directories(tmp / "elsewhere");
  fs::create_directory_symlink(tmp / "elsewhere", tmp / "moesweep-test-999999999-link01");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  fs::path made;
  {
    const TemporaryFolder folder("moesweep-test", "a test");
    made = folder.path();
    std::ofstream(made / "a file") << "x";
    EXPECT_EQ(made.parent_path(), tmp);
    EXPECT_EQ(made.filename().string().rfind(fmt::format("moesweep-test-{}-", ::getpid()), 0), 0u)
        << made;
  }
  if (old)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  EXPECT_FALSE(fs::exists(made));
  EXPECT_FALSE(fs::exists(tmp / "moesweep-test-999999999-dead01"));
  EXPECT_TRUE(fs::exists(tmp / fmt::format("moesweep-test-{}-live01", ::getppid())));
  EXPECT_TRUE(fs::exists(tmp / "moesweep-other-999999999-dead02"));
  EXPECT_TRUE(fs::is_symlink(tmp / "moesweep-test-999999999-link01"));
  EXPECT_TRUE(fs::exists(tmp / "elsewhere"));
}

}  // namespace
}  // namespace moesweep
