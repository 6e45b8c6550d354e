// `moesweep bisect --checkout` on a real git history (issue 45): four commits
// on top of the pinned llama.cpp source (third_party/llama.cpp, a clone of
// its git bundle), one of which adds a busy loop to llama_decode, which every
// decoded token passes through, so TG instructions per token rise by about
// 8%. git bisect run, with moesweep judging each commit by exact counts
// (--counters sim, each commit built as an engine through the compiler
// cache), must name that commit. Cost: the engine compiles once from cold
// (the first run of this test on a machine), every later build of it and of
// the other commits is compiler-cache hits but the changed file; each
// measurement is one point under valgrind. The test prints its seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using test::shell_quoted;

std::string in(const fs::path& dir, const std::string& command) {
  const auto r = test::run_shell("cd " + shell_quoted(dir) + " && " + command);
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.out << r.err;
  std::string out = r.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Commits `file` with `line` appended (or, for the plant, the loop inserted).
std::string commit(const fs::path& repo, const std::string& message) {
  in(repo, "git -c user.name=test -c user.email=test@example.invalid commit -q -am " +
               shell_quoted(message));
  return in(repo, "git rev-parse --short=10 HEAD");
}

TEST(Bisect, NamesThePlantedCommitOfACheckoutsHistory) {
  const auto started = std::chrono::steady_clock::now();
  const fs::path dir = test::scratch_dir();
  const fs::path repo = dir / "llama.cpp";
  in(dir, "git clone -q " + shell_quoted(fs::path(test::source_dir()) / "third_party/llama.cpp") +
              " llama.cpp");
  const std::string good = in(repo, "git rev-parse --short=10 HEAD");
  in(repo, "echo 'a note' >> README.md");
  commit(repo, "docs: a note");
  // The plant: about a million instructions more in every llama_decode call.
  in(repo,
     "sed -i 's|^    const int ret = ctx->decode(batch);$|    for (volatile int i = 0; i < "
     "200000; i = i + 1) {}\\n&|' src/llama-context.cpp && grep -q 'i < 200000' "
     "src/llama-context.cpp");
  const std::string planted = commit(repo, "planted: a busy loop in llama_decode");
  in(repo, "echo 'another note' >> README.md");
  commit(repo, "docs: another note");
  in(repo, "echo 'a third note' >> docs/build.md");
  const std::string bad = commit(repo, "docs: a third note");
  std::ofstream(dir / "counts.json") << R"({"name": "counts", "model": "kimi-k2.5",
    "scale": "tiny", "threads": "1", "depths": "0", "n-prompt": "32", "n-gen": "8",
    "repetitions": "1", "ctx-size": 512})";
  const auto r = test::run_cli("bisect --checkout " + shell_quoted(repo) + " --good " + good +
                               " --bad " + bad + " --profile " + shell_quoted(dir / "counts.json") +
                               " --out-dir " + shell_quoted(dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("first bad commit: " + planted.substr(0, 7)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("planted: a busy loop in llama_decode"), std::string::npos) << r.out;
  // The user's checkout is left as it was: its HEAD, no bisect, no extra worktree.
  EXPECT_EQ(in(repo, "git rev-parse --short=10 HEAD"), bad);
  EXPECT_EQ(in(repo, "git worktree list | wc -l"), "1");
  EXPECT_FALSE(fs::exists(repo / ".git" / "BISECT_LOG"));
  std::cout << "[bisect test] "
            << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                                started)
                   .count()
            << " s\n";
}

// Nothing to bisect: a bad commit that is not worse (exit 5); and the refusals.
TEST(Bisect, RefusesWhatItCannotBisect) {
  const fs::path dir = test::scratch_dir();
  for (const auto& [args, said] : std::vector<std::pair<std::string, std::string>>{
           {"--good 3.21.1 --bad 3.22.1 --metric tg_cycles", "is no count per token"},
           {"--good 3.22.1 --bad 3.21.1", "runs backwards"},
           {"--good 3.21.1 --bad 9.9.9", "no pinned llama.cpp release for npm version '9.9.9'"},
           {"--good 3.21.1 --bad 3.22.1 --threshold x", "--threshold 'x' is not a percentage"},
           {"--good a --bad b --checkout " + shell_quoted(dir), "git rev-parse in"}}) {
    SCOPED_TRACE(args);
    const auto r = test::run_cli("bisect " + args + " --out-dir " + shell_quoted(dir / "out"));
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace moesweep
