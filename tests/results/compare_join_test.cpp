// compare's join as a user meets it (issue 48): two single-engine runs
// (`sweep --engine a`, then `--engine b`) compare without `--ignore engine`
// and the report says why; a run holding several engines keeps the engine in
// the key; the nearest-key hint names the field that differs, also one that
// only one side's key holds; the terminal's table fits 120 columns and the
// wide one keeps every column.
#include <gtest/gtest.h>

#include "results/compare.hpp"
#include "results/compare_format.hpp"
#include "sample_sets.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

using test::make_record;
using test::normal_samples;

// Threads {1, 2} x depths {0, 256, 512}, every point measured by `engine`
// ("" = this moesweep's own worker, which the key leaves out).
LoadedRun run_of(const std::string& id, uint64_t seed, const std::string& engine) {
  LoadedRun run;
  run.label = id;
  int index = 0;
  for (int threads : {1, 2})
    for (int n_kv : {0, 256, 512}) {
      Record r = make_record(id, index, threads, n_kv,
                             normal_samples(seed * 100 + index, 5, 120.0 * threads, 2.0),
                             normal_samples(seed * 100 + 50 + index, 5, 12.0 * threads, 0.2));
      r.params.engine = engine;
      run.records.push_back(r);
      ++index;
    }
  return run;
}

TEST(CompareJoin, TwoSingleEngineRunsJoinWithoutTheEngineAndSaySo) {
  const Comparison c = compare_runs(run_of("a", 1, "main"), run_of("b", 2, "pr"), {});
  EXPECT_EQ(c.points.size(), 6u);
  EXPECT_TRUE(c.only_in_base.empty());
  EXPECT_EQ(c.engine_fields_joined, std::vector<std::string>{"engine"});
  const std::string md = comparison_markdown(c, TableWidth::kCompact);
  EXPECT_NE(md.find("Each side holds one engine (main and pr), so the points are joined without "
                    "`engine`"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("Key fields ignored for the join"), std::string::npos)
      << "the user ignored nothing: " << md;
  const nlohmann::json j = comparison_json(c);
  EXPECT_EQ(j["engines"]["joined_without"], nlohmann::json::array({"engine"}));
}

TEST(CompareJoin, ARunOfTheDefaultEngineJoinsARunOfAnotherOne) {
  // The default engine is blank in the key: one engine on each side all the same.
  const Comparison c = compare_runs(run_of("a", 3, ""), run_of("b", 4, "v050"), {});
  EXPECT_EQ(c.points.size(), 6u);
  EXPECT_EQ(c.engine_fields_joined, std::vector<std::string>{"engine"});
}

TEST(CompareJoin, ARunOfSeveralEnginesKeepsThemInTheKeyAndTheHintNamesTheField) {
  LoadedRun both = run_of("ab", 5, "main");
  for (const Record& r : run_of("ab", 6, "pr").records) both.records.push_back(r);
  const Comparison c = compare_runs(both, run_of("c", 7, "other"), {});
  EXPECT_TRUE(c.points.empty());
  EXPECT_TRUE(c.engine_fields_joined.empty());
  ASSERT_FALSE(c.only_in_new.empty());
  EXPECT_NE(c.only_in_new[0].differences.find("engine: other -> "), std::string::npos)
      << c.only_in_new[0].differences;
}

TEST(CompareJoin, TheNearestKeyHintNamesAFieldOnlyOneKeyHolds) {
  // A co-tenant is written into the key only when set: the layouts differ,
  // and the hint still says which field it is.
  LoadedRun loaded = run_of("n", 9, "");
  for (Record& r : loaded.records) r.params.cotenant = "stream";
  const Comparison c = compare_runs(run_of("b", 8, ""), loaded, {});
  ASSERT_EQ(c.only_in_base.size(), 6u);
  EXPECT_EQ(c.only_in_base[0].differences, "cotenant: (not in key) -> stream");
  EXPECT_EQ(c.only_in_new[0].differences, "cotenant: stream -> (not in key)");
}

TEST(CompareJoin, TheTerminalTableFitsAndTheWideOneKeepsEveryColumn) {
  const Comparison c = compare_runs(run_of("base", 10, ""), run_of("new", 11, ""), {});
  const std::string compact = comparison_markdown(c, TableWidth::kCompact);
  EXPECT_LE(widest_line(compact), kTerminalWidth) << compact;
  EXPECT_NE(compact.find("S_TG new/base [95% CI]"), std::string::npos) << compact;
  EXPECT_NE(compact.find("Every point: model kimi-k2.5-tiny"), std::string::npos) << compact;
  const std::string wide = comparison_markdown(c, TableWidth::kWide);
  for (const char* column : {"| base S_PP |", "| new S_TG |", "| p |", "| n_ubatch |"})
    EXPECT_NE(wide.find(column), std::string::npos) << column << "\n" << wide;
}

}  // namespace
}  // namespace moesweep
