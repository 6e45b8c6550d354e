// llama-bench's spellings of the axes moesweep shares with it, through the
// real CLI (issue 9): -d/--n-depth, -fa auto|on|off|-1|1|0, -lm/--load-mode,
// the older -mmp, and the context sized from the depths when -c is not given.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::CommandResult;

TEST(LlamaBenchFlags, DeepDepthsWithoutCtxSizeAreSizedAsLlamaBenchDoes) {
  // Refused before: the fixed default ctx of 4096 could not hold depth 6144.
  const CommandResult r = test::run_cli("sweep -d 0-6144+1024 --dry-run --no-db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // deepest 6144 + PP 512 (one ubatch) + TG 32
  EXPECT_NE(r.out.find("ctx 6688 b 2048 ub 512 K f16 V f16 fa auto: depths "
                       "0,1024,2048,3072,4096,5120,6144"),
            std::string::npos)
      << r.out;
}

TEST(LlamaBenchFlags, NDepthAndDepthsAreOneAxis) {
  const CommandResult a = test::run_cli("sweep --n-depth 0,512 -p 256 -n 16 --dry-run --no-db");
  const CommandResult b = test::run_cli("sweep --depths 0,512 -p 256 -n 16 --dry-run --no-db");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("ctx 784 "), std::string::npos) << a.out;  // 512 + 256 + 16
}

TEST(LlamaBenchFlags, FlashAttnTakesAutoAndNumbersAndQuantizedVRunsUnderAuto) {
  const CommandResult r =
      test::run_cli("sweep -fa -1,1,0 -ctk q8_0 -ctv q8_0 -d 0 -c 1024 --dry-run --no-db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("V q8_0 fa auto: depths 0 | PP 512 TG 32 x3\n"), std::string::npos)
      << r.out;  // valid: the engine turns flash attention on for a quantized V cache
  EXPECT_NE(r.out.find("V q8_0 fa on: depths 0 | PP 512 TG 32 x3\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fa off: depths 0 | PP 512 TG 32 x3  INVALID: -ctv q8_0 needs flash"),
            std::string::npos)
      << r.out;
}

TEST(LlamaBenchFlags, LoadModeAndItsOlderSpellingsAreAccepted) {
  for (const char* flags : {"-lm mmap", "--load-mode dio", "-lm none", "-mmp 0", "--mlock"}) {
    SCOPED_TRACE(flags);
    const CommandResult r =
        test::run_cli(std::string("sweep ") + flags + " -d 0 -ngl 0 --dry-run --no-db");
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  const CommandResult bad = test::run_cli("sweep -lm fast -d 0 --dry-run --no-db");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown load mode 'fast'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("mmap+mlock"), std::string::npos) << bad.err;
  const CommandResult both = test::run_cli("sweep -lm mmap --mlock -d 0 --dry-run --no-db");
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

// A run started before the defaults became llama-bench's would, resumed now,
// match none of its measured points (its unset -fa/-ngl/-lm/-c meant others).
TEST(LlamaBenchFlags, ResumingARunMadeWithTheOlderDefaultsIsRefused) {
  const CommandResult version = test::run_cli("--version");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(version.out, m, std::regex(R"(\(commit ([0-9a-f]+|unknown)\))")))
      << version.out;
  const std::filesystem::path run = test::scratch_dir() / "20261129-120000-old";
  std::filesystem::create_directories(run);
  const nlohmann::json meta = {
      {"run_id", "20261129-120000-old"},
      {"status", "interrupted"},
      {"build", {{"engine", {{"commit", m[1].str()}}}}},
      {"settings", {{"depths", "0"}}},
      {"spec", {{"use_mmap", true}, {"use_mlock", false}, {"flash_attn", {0}}}}};
  std::ofstream(run / "meta.json") << meta.dump();
  const CommandResult r = test::run_cli("sweep --no-db --resume '" + run.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("older moesweep whose defaults were not llama-bench's"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("start a new sweep"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
