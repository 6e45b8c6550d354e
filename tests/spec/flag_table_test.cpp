// The sweep's flag table in docs/sweep.md is the settings table rendered
// (sweep_settings_markdown), and llama.cpp's spellings are rewritten to the
// table's long names everywhere but after "--" (serve-bench's llama-server flags).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"
#include "sweep/flag_spellings.hpp"
#include "sweep/sweep_settings.hpp"

namespace moesweep {
namespace {

constexpr const char* kBegin = "<!-- flags:begin -->\n";
constexpr const char* kEnd = "<!-- flags:end -->";

// The text of `file` between the flags markers; "" (and a failure) without them.
std::string between_markers(const std::string& file) {
  std::ifstream in(file);
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  const size_t begin = text.find(kBegin);
  const size_t end = text.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    ADD_FAILURE() << file << " has no " << kBegin << "..." << kEnd << " block";
    return "";
  }
  return text.substr(begin + std::string(kBegin).size(), end - begin - std::string(kBegin).size());
}

TEST(FlagTable, DocsHoldTheTableTheSettingsRender) {
  const std::string doc = std::string(MOESWEEP_SOURCE_DIR) + "/docs/sweep.md";
  EXPECT_EQ(between_markers(doc), sweep_settings_markdown())
      << "docs/sweep.md's flag table differs from src/sweep/sweep_settings.cpp: replace the "
         "lines between its flags markers with the output of `moesweep help-flags --markdown`";
}

TEST(FlagTable, OneRowPerSettingWithItsKeyAndLevel) {
  const std::string table = sweep_settings_markdown();
  size_t rows = 0;
  for (size_t at = 0; (at = table.find('\n', at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, sweep_settings().size() + 2);  // header and its rule
  EXPECT_NE(table.find("| `-t`, `--threads` |  | `threads` | thread | "), std::string::npos)
      << table;
  EXPECT_NE(table.find("| `--threads-batch` | `-tb` | `threads-batch` | thread | "),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| (profile only) |  | `description` | run | "), std::string::npos) << table;
  EXPECT_NE(table.find("(a switch; `true` in a profile) |\n"), std::string::npos) << table;
}

TEST(LlamaAliases, SingleDashLongFlagsBecomeTheTablesLongNames) {
  EXPECT_EQ(rewrite_llama_aliases({"sweep", "-tb", "4", "-ub=256", "-ctk", "q8_0", "-t", "2"}),
            (std::vector<std::string>{"sweep", "--threads-batch", "4", "--ubatch-size=256",
                                      "--cache-type-k", "q8_0", "-t", "2"}));
}

TEST(LlamaAliases, ArgumentsAfterDoubleDashAreLeftAsGiven) {
  const std::vector<std::string> args = {"serve-bench", "-ub",  "512",  "--",  "-tb",
                                         "16",          "-ctk", "q8_0", "-lm", "mmap"};
  EXPECT_EQ(rewrite_llama_aliases(args),
            (std::vector<std::string>{"serve-bench", "--ubatch-size", "512", "--", "-tb", "16",
                                      "-ctk", "q8_0", "-lm", "mmap"}));
}

}  // namespace
}  // namespace moesweep
