// Hints where the user is (issue 48): `--help` lists help-flags, which fits a
// terminal; the dry run tells a cached twin from one it would build; a resumed
// sweep counts its points on from those it had ("point 3/3", not "1/3").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"
#include "sweep/flag_spellings.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

TEST(Hints, HelpListsHelpFlagsWhichFitsATerminal) {
  const test::CommandResult help = test::run_cli("--help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("help-flags"), std::string::npos) << help.out;
  const test::CommandResult flags = test::run_cli("help-flags");
  EXPECT_EQ(flags.exit_code, 0) << flags.err;
  EXPECT_NE(flags.out.find("-t,--threads  [thread, key threads]"), std::string::npos) << flags.out;
  EXPECT_LE(widest_line(flags.out), kTerminalWidth) << flags.out;
  EXPECT_EQ(test::run_cli("help-flags --markdown").out, sweep_settings_markdown());
}

TEST(Hints, TheDryRunTellsACachedTwinFromOneToBuild) {
  const fs::path twin = test::tiny_twin();
  const std::string sweep =
      " sweep -m kimi-k2.5 --scale tiny -q Q4_K_S -t 1 --depths 0 -c 1024 "
      "--dry-run --no-db";
  const test::CommandResult cached = test::run_cli(sweep.substr(1));
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  EXPECT_NE(cached.out.find("(twin, cached: " + twin.filename().string() + ")"), std::string::npos)
      << cached.out;
  EXPECT_EQ(cached.out.find("twins to build"), std::string::npos) << cached.out;
  const fs::path empty = test::scratch_dir() / "empty-cache";
  fs::create_directories(empty);
  const test::CommandResult to_build = test::run_shell(
      "MOESWEEP_CACHE_DIR=" + test::shell_quoted(empty) + " " + test::cli_path() + sweep);
  ASSERT_EQ(to_build.exit_code, 0) << to_build.err;
  EXPECT_NE(to_build.out.find("(twin, built on first use)"), std::string::npos) << to_build.out;
  EXPECT_NE(to_build.out.find("twins to build: 1"), std::string::npos) << to_build.out;
}

TEST(Hints, AResumedSweepCountsOnFromThePointsItHad) {
  test::tiny_twin();
  const fs::path out = test::scratch_dir() / "runs";
  const test::CommandResult first = test::run_cli(
      "sweep -m kimi-k2.5 --scale tiny -q Q4_K_S -t 1 --depths 0,64,128 -c 512 -ub 64 -p 64 -n 4 "
      "-r 1 --counters none --no-db --quiet --out-dir " +
      test::shell_quoted(out));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const fs::path run = test::only_run_dir(out);
  // As a Ctrl-C after the second point leaves it: two records, meta.json interrupted.
  const std::vector<std::string> lines = test::read_lines(run / "records.jsonl");
  ASSERT_EQ(lines.size(), 3u);
  std::ofstream(run / "records.jsonl") << lines[0] << "\n" << lines[1] << "\n";
  nlohmann::json meta = nlohmann::json::parse(test::slurp(run / "meta.json"));
  meta["status"] = "interrupted";
  std::ofstream(run / "meta.json") << meta.dump(2);
  const test::CommandResult resumed = test::run_cli("sweep --resume " + test::shell_quoted(run));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("[sweep] point 3/3 "), std::string::npos) << resumed.err;
  EXPECT_EQ(resumed.err.find("[sweep] point 1/3 "), std::string::npos) << resumed.err;
}

}  // namespace
}  // namespace moesweep
