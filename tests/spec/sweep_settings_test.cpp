// The one table of sweep settings (issue 10): every profile key is a flag and
// every flag a profile key, llama.cpp's aliases come from the same rows, and
// the twin overrides that used to work only in profiles (--heads, --dense-ff,
// --vocab) work as flags too, with the same result.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "model/shape_flags.hpp"
#include "support/test_support.hpp"
#include "sweep/sweep_settings.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(SweepSettingsTable, KeysAreUniqueAndEachFlagIsNamedAfterItsKey) {
  std::set<std::string> keys;
  for (const SweepSetting& s : sweep_settings()) {
    SCOPED_TRACE(s.key);
    EXPECT_TRUE(keys.insert(s.key).second) << "duplicate key";
    EXPECT_NE(s.help, nullptr);
    if (s.kind == SettingKind::kProfileOnly) {
      EXPECT_EQ(s.cli_names, nullptr);
      continue;
    }
    ASSERT_NE(s.cli_names, nullptr);
    // merged_settings() reads the key back as the option's first long name.
    std::string names = std::string(s.cli_names) + ",";
    const size_t long_at = names.find("--");
    ASSERT_NE(long_at, std::string::npos);
    names.erase(0, long_at + 2);
    EXPECT_EQ(names.substr(0, names.find(',')), s.key);
    if (s.llama_alias) {
      EXPECT_EQ(s.llama_alias[0], '-');
    }
  }
}

TEST(SweepSettingsTable, TheProfileParserKnowsExactlyTheTablesKeys) {
  std::vector<std::string> table_keys;
  for (const SweepSetting& s : sweep_settings()) table_keys.push_back(s.key);
  EXPECT_EQ(known_sweep_keys(), table_keys);
  try {
    spec_from_settings({{"hiden", 512}}, "test.json");
    FAIL() << "a misspelt key was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown setting 'hiden'"), std::string::npos);
  }
}

TEST(SweepSettingsTable, HeadsDenseFfAndVocabAreFlagsWithTheProfilesMeaning) {
  const std::filesystem::path dir = test::scratch_dir();
  std::ofstream(dir / "shape.json") << R"({"heads": 8, "dense-ff": 512, "vocab": 1024})";
  const test::CommandResult by_flags =
      test::run_cli("sweep --heads 8 --dense-ff 512 --vocab 1024 -d 0 --dry-run --no-db");
  const test::CommandResult by_profile =
      test::run_cli("sweep --profile " + (dir / "shape.json").string() + " -d 0 --dry-run --no-db");
  const test::CommandResult plain = test::run_cli("sweep -d 0 --dry-run --no-db");
  ASSERT_EQ(by_flags.exit_code, 0) << by_flags.err;
  ASSERT_EQ(by_profile.exit_code, 0) << by_profile.err;
  // The same twin (its name carries the hash of its shape), not the plain one.
  const auto model_line = [](const std::string& out) {
    const size_t at = out.find("\nmodel ");
    return at == std::string::npos ? std::string()
                                   : out.substr(at + 1, out.find('\n', at + 1) - at);
  };
  EXPECT_FALSE(model_line(by_flags.out).empty()) << by_flags.out;
  EXPECT_EQ(model_line(by_flags.out), model_line(by_profile.out));
  EXPECT_NE(model_line(by_flags.out), model_line(plain.out));
}

TEST(SweepSettingsTable, LlamaStyleAliasesComeFromTheTable) {
  // -tb and -ub are rows' aliases: the CLI rewrites them to the long names.
  const test::CommandResult r = test::run_cli("sweep -t 1 -tb 1 -ub 256 -d 0 --dry-run --no-db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" ub 256 "), std::string::npos) << r.out;
}

// The twin's shape flags are one list (model/shape_flags.hpp): the sweep's
// rows are those rows, in their order, and each flag sets a member of its own.
TEST(TwinShapeFlags, TheSweepsTwinRowsAreTheShapeTable) {
  const std::vector<ShapeFlag>& flags = twin_shape_flags();
  const Rows<SweepSetting>& rows = sweep_settings();
  const auto first = std::find_if(rows.begin(), rows.end(), [&](const SweepSetting& r) {
    return std::string(r.key) == flags.front().key;
  });
  ASSERT_NE(first, rows.end()) << "a shape flag the sweep does not take";
  for (size_t i = 0; i < flags.size(); ++i) {
    SCOPED_TRACE(flags[i].key);
    ASSERT_LT(static_cast<size_t>(first - rows.begin()) + i, rows.size());
    const SweepSetting& row = *(first + static_cast<std::ptrdiff_t>(i));
    EXPECT_EQ(std::string(row.key), flags[i].key);
    EXPECT_EQ(std::string(row.cli_names), flags[i].flag);
    EXPECT_EQ(std::string(row.help), flags[i].sweep_help());
    EXPECT_EQ(row.level, SettingLevel::kTwin);
    EXPECT_EQ(std::string(flags[i].flag), std::string("--") + flags[i].key);
    for (size_t j = i + 1; j < flags.size(); ++j)
      EXPECT_NE(flags[i].member, flags[j].member) << "the same member as " << flags[j].key;
  }
}

}  // namespace
}  // namespace moesweep
