// `moesweep gate`'s refusals (issue 45): every one is the three-part message
// and exit 2 before anything is registered or measured (an empty registry
// stays empty), and --dry-run says what it would register and run.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using test::shell_quoted;

test::CommandResult gate_in(const fs::path& registry, const std::string& args) {
  return test::run_shell("MOESWEEP_ENGINES=" + shell_quoted(registry) + " " + test::cli_path() +
                         " gate " + args);
}

TEST(GateArgs, BadInputIsRefusedBeforeAnyWork) {
  const fs::path dir = test::scratch_dir();
  const fs::path registry = dir / "registry";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--base", "--base: 1 required"},
      {"--base ''", "--base: an empty value"},
      {"--base --new", "'--new' is another option"},
      {"--base pr --new pr", "base and new are the same engine"},
      {"--base not/a/folder", "is no folder, release version (3.21.1) or registered engine"},
      {"--base ' spaced'", "is no folder, release version"},
      {"--base nosuch", "no engine called 'nosuch'"},
      {"--counts", "--counts without --base"},
      {"--base 3.21.1 --counts --target-mde 5", "--counts with --target-mde or --max-time"},
      {"--base 3.21.1 --metric instructions", "count metrics without --counts"},
      {"--base 3.21.1 --update", "--update with --base"},
      {"--keep 0 --update", "--keep 0 keeps no run"},
      {"--base 3.21.1 --threshold abc", "--threshold 'abc' is not a percentage"},
      {"--base 3.21.1 --alpha 2", "--alpha 2 is outside (0, 1)"},
      {"--base 3.21.1 --family none+", "family"},
      {"--base 3.21.1 --target-mde 0", "--target-mde"},
      {"--base 3.21.1 --max-time -1", "--max-time"},
      {"--bogus", "--bogus"},
      {"--baseline " + shell_quoted(dir / "no-store") + " --out-dir " + shell_quoted(dir / "o"),
       "has no baseline of machine class"},
  };
  for (const auto& [args, said] : cases) {
    SCOPED_TRACE(args);
    const auto r = gate_in(registry, args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(registry / "release-3.21.1")) << "a refused gate registered an engine";
  EXPECT_FALSE(fs::exists(dir / "o")) << "a refused gate made its output folder";
}

TEST(GateArgs, DryRunSaysWhatItWouldRegisterAndRun) {
  const fs::path dir = test::scratch_dir();
  fs::create_directories(dir / "my llama.cpp");
  const auto r = gate_in(dir / "registry", "--base " + shell_quoted(dir / "my llama.cpp") +
                                               " --counts --dry-run --out-dir x");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("would register: moesweep engine add checkout-my-llama.cpp-"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--profile ci-counts"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--counters sim"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "registry")) << r.err;
}

}  // namespace
}  // namespace moesweep
