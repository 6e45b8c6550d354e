// The GGUF inputs that the fuzzer found (fuzz/regressions/gguf/) through the
// CLI: `inspect` refuses each as a corrupt file, exit 2, never a crash or an
// internal error. The fuzz target replays them under the sanitizers; this
// holds the user's side in the ordinary build.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

TEST(GgufFuzzRegressions, InspectRefusesEachWithExit2) {
  const std::filesystem::path dir =
      std::filesystem::path(MOESWEEP_SOURCE_DIR) / "fuzz" / "regressions" / "gguf";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(e.path().string());
    const test::CommandResult r =
        test::run_shell(std::string(MOESWEEP_CLI) + " inspect '" + e.path().string() + "'");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("truncated or corrupt"), std::string::npos) << r.err;
    ++n;
  }
  EXPECT_GT(n, 0);
}

}  // namespace
}  // namespace moesweep
