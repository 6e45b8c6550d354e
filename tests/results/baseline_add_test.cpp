// `baseline add` takes a run directory that may be old, hand-edited or
// hostile (issue 20, defects 1, 2 and 3): its meta.json and records.jsonl go
// through their typed readers, its run id must stay inside the class folder,
// and --keep never drops the run it just added.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "results/baseline_store.hpp"
#include "results/run_meta.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

const fs::path kRound1 = fs::path(MOESWEEP_TEST_DATA) / "runs" / "round1-sweep";

fs::path copy_run(const fs::path& to, const std::string& run_id) {
  fs::create_directories(to);
  fs::copy(kRound1, to, fs::copy_options::overwrite_existing | fs::copy_options::recursive);
  nlohmann::json meta = read_json_file(to / "meta.json", "test");
  meta["run_id"] = run_id;
  std::ofstream(to / "meta.json") << meta.dump(2);
  return to;
}

TEST(BaselineAdd, ARunOlderThanTheOthersIsKeptAndTheOldestOtherGoes) {
  const fs::path root = test::scratch_dir();
  const fs::path store = root / "store";
  for (const char* id : {"20261201-100000-ci", "20261201-110000-ci", "20261201-120000-ci"})
    record_baseline(copy_run(root / "runs" / id, id), store, 3);
  const BaselineAdded added =
      record_baseline(copy_run(root / "runs" / "old", "20261101-090000-ci"), store, 3);
  EXPECT_TRUE(fs::exists(added.member / "records.jsonl")) << "the run just added was deleted";
  EXPECT_EQ(added.runs, 3);
  ASSERT_EQ(added.removed.size(), 1u);
  EXPECT_EQ(added.removed[0].filename(), "20261201-100000-ci");
  EXPECT_EQ(baseline_classes(store).at(0).runs, 3) << "what cmd_baseline prints is what is there";
}

TEST(BaselineAdd, RunIdsThatLeaveTheClassFolderAreRefusedBeforeAnythingIsWritten) {
  const fs::path root = test::scratch_dir();
  const std::vector<std::string> ids = {
      "../../escape", (root / "abs").string(), "", ".", "..", "a/b", "nl\nx"};
  for (const std::string& id : ids) {
    const fs::path store = root / "store";
    const std::string problem =
        test::refused([&] { record_baseline(copy_run(root / "run", id), store, 3); });
    EXPECT_NE(problem.find("run id"), std::string::npos) << problem;
    EXPECT_NE(problem.find("cannot name a folder"), std::string::npos) << problem;
    EXPECT_FALSE(fs::exists(store)) << "something was written for run id '" << id << "'";
  }
  EXPECT_FALSE(fs::exists(root / "abs"));
  EXPECT_FALSE(fs::exists(root / "escape"));  // store/<class>/../../escape
}

TEST(BaselineAdd, AnOverDeepMetaJsonOrRecordsLineIsRefusedQuickly) {
  const fs::path root = test::scratch_dir();
  const fs::path run = copy_run(root / "run", "20261201-100000-ci");
  std::ofstream(run / "records.jsonl", std::ios::app)
      << std::string(20000, '[') << std::string(20000, ']') << "\n";
  // Was copied into the baseline, after work quadratic in the depth; the
  // records reader (depth-checked) refuses it, naming the line.
  EXPECT_NE(test::refused([&] {
              record_baseline(run, root / "store", 3);
            }).find("records.jsonl:3: not valid JSON (a syntax error"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(root / "store" / "amd-26-2-2cpu-l3_na-d8a3c4a8"));
  std::ofstream(run / "meta.json")
      << "{\"a\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  EXPECT_NE(test::refused([&] {
              record_baseline(run, root / "store2", 3);
            }).find("nests arrays/objects 100001 levels deep"),
            std::string::npos);
}

TEST(BaselineAdd, ATornLastLineIsLeftOutOfTheBaselineAndNamed) {
  const fs::path root = test::scratch_dir();
  const fs::path run = copy_run(root / "run", "20261201-100000-ci");
  std::ofstream(run / "records.jsonl", std::ios::app) << "{\"n_kv_max\":68,\"n_bat";
  const BaselineAdded added = record_baseline(run, root / "store", 3);
  EXPECT_EQ(test::read_lines(added.member / "records.jsonl").size(), 2u);
  ASSERT_EQ(added.notes.size(), 1u);
  EXPECT_NE(added.notes[0].find("records.jsonl:3 ends in a torn line"), std::string::npos);
  // The member reads back through the typed readers.
  EXPECT_EQ(read_run_meta(added.member).run_id, "20261201-100000-ci");
}

}  // namespace
}  // namespace moesweep
