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
#include <set>

#include "shared_engines.hpp"
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

// The dumps bisect points at: its lines "  callgrind_annotate --threshold=100 FILE".
std::vector<fs::path> annotate_hints(const std::string& out) {
  std::vector<fs::path> files;
  const std::string hint = "  callgrind_annotate --threshold=100 ";
  for (size_t at = out.find(hint); at != std::string::npos; at = out.find(hint, at + 1))
    files.emplace_back(out.substr(at + hint.size(), out.find('\n', at) - at - hint.size()));
  return files;
}

// A release bisect over a known upstream change (issue 45): llama.cpp PR
// #16812, first in 3.14.4 (b7324), pads the KV cache to 256 cells where
// 3.14.2 padded it to 32 without flash attention, so a token generated at
// N_KV 16 attends to 8 times the cells. Between 3.14.2 and 3.14.5 bisect must
// name 3.14.4, measuring each release once, on 3.14.2's twin, and point at
// callgrind's dumps of the cell that grew, which callgrind_annotate reads.
// Cost: three releases registered from their packages (their first time on a
// machine), three one-point sweeps under valgrind.
TEST(Bisect, NamesTheFirstBadReleaseOfAKnownUpstreamChange) {
  const fs::path dir = test::scratch_dir();
  std::ofstream(dir / "counts.json") << R"({"name": "counts", "model": "kimi-k2.5",
    "scale": "tiny", "experts": 128, "threads": "1", "depths": "0", "n-prompt": "16",
    "n-gen": "4", "ubatch-size": 16, "repetitions": "1", "ctx-size": 256, "flash-attn": "off",
    "cache-type-k": "f16", "cache-type-v": "f16"})";
  const auto r = test::run_shell(test::with_registry(
      std::string(test::cli_path()) + " bisect --good 3.14.2 --bad 3.14.5 --profile " +
      shell_quoted(dir / "counts.json") + " --out-dir " + shell_quoted(dir / "out")));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("first bad release: 3.14.4 (b7324), after 3.14.2 (b6845): "
                       "tg_instructions_per_token +"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(3 releases measured)"), std::string::npos) << r.out;
  const std::vector<fs::path> dumps = annotate_hints(r.out);
  ASSERT_EQ(dumps.size(), 2u) << r.out;
  for (const fs::path& dump : dumps) {
    const auto annotated =
        test::run_shell("callgrind_annotate --threshold=100 " + shell_quoted(dump));
    EXPECT_EQ(annotated.exit_code, 0) << annotated.err;
    EXPECT_NE(annotated.out.find("PROGRAM TOTALS"), std::string::npos) << annotated.out;
    EXPECT_NE(annotated.out.find(":ggml_"), std::string::npos) << "no ggml function";
  }
  // One twin: every release's points loaded the model file the good one did.
  std::set<std::string> models;
  int runs = 0;
  for (const auto& run : fs::directory_iterator(dir / "out" / "runs")) {
    ++runs;
    for (const std::string& line : test::read_lines(run.path() / "records.jsonl"))
      models.insert(nlohmann::json::parse(line).at("model").get<std::string>());
  }
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(models.size(), 1u);
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
