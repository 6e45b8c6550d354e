// The CI files the repository ships (.github/workflows/moesweep-gate.yml and
// ci/gitlab-moesweep-gate.yml, issue 45) run `moesweep gate`: this test reads
// the lines between their ">>> moesweep gate" and "<<< moesweep gate" markers
// and runs them as they are, in bash, with the environment a CI job would
// give them, only smaller: the tiny twin's short profiles, and as the base
// this build's own worker registered under a second name (an A/A gate at
// alpha 0.001: pass or inconclusive, never a regression, so it may run beside
// other tests). Their set-up steps (scripts/setup) are this build.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/shared_engines.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using test::shell_quoted;

// Every marked block of `file`, dedented to its marker's column.
std::vector<std::string> gate_blocks(const fs::path& file) {
  std::vector<std::string> blocks;
  std::ifstream in(file);
  std::string line, block;
  size_t indent = std::string::npos;
  while (std::getline(in, line)) {
    const size_t at = line.find("# >>> moesweep gate");
    if (at != std::string::npos) {
      indent = at;
      block.clear();
    } else if (line.find("# <<< moesweep gate") != std::string::npos) {
      blocks.push_back(block);
      indent = std::string::npos;
    } else if (indent != std::string::npos) {
      block += (line.size() > indent ? line.substr(indent) : std::string()) + "\n";
    }
  }
  return blocks;
}

void run_blocks(const fs::path& file) {
  const std::vector<std::string> blocks = gate_blocks(fs::path(test::source_dir()) / file);
  ASSERT_EQ(blocks.size(), 2u) << file << ": a wall-time job and a counts job";
  test::ensure_same_build("same-build");
  const fs::path dir = test::scratch_dir();
  std::ofstream(dir / "wall.json") << R"({"name": "wall", "model": "kimi-k2.5", "scale": "tiny",
    "threads": "1", "depths": "0,256", "ctx-size": 1024, "n-gen": "32", "repetitions": "5"})";
  std::ofstream(dir / "counts.json") << R"({"name": "counts", "model": "kimi-k2.5",
    "scale": "tiny", "threads": "1", "depths": "0", "n-prompt": "32", "n-gen": "8",
    "repetitions": "1", "ctx-size": 512})";
  for (const std::string& block : blocks) {
    SCOPED_TRACE(block);
    const bool counts = block.find("--counts") != std::string::npos;
    std::ofstream(dir / "job.sh") << block;
    const auto r = test::run_shell(
        "cd " + shell_quoted(dir) + " && " +
        test::with_registry("MOESWEEP=" + std::string(test::cli_path()) +
                            " GATE_BASE=same-build GATE_OUT=out GATE_ARGS='--max-time 30 "
                            "--target-mde 5 --alpha 0.001' GATE_PROFILE=" +
                            shell_quoted(dir / (counts ? "counts.json" : "wall.json")) +
                            " bash -eo pipefail job.sh"));
    if (counts)
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // the same worker: the same counts
    else
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.out << r.err;
    const fs::path runs = dir / "out" / (counts ? "counts" : "wall-time");
    EXPECT_TRUE(fs::is_regular_file(test::only_run_dir(runs) / "junit.xml"));
    fs::remove_all(runs);
  }
}

TEST(CiFiles, TheGitHubWorkflowRunsTheGate) {
  run_blocks(".github/workflows/moesweep-gate.yml");
}

TEST(CiFiles, TheGitLabJobsRunTheGate) {
  run_blocks("ci/gitlab-moesweep-gate.yml");
}

}  // namespace
}  // namespace moesweep
