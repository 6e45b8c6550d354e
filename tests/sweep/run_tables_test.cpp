// A sweep's tables, its noise summary and its database rows come from the
// run's events, not from reading each other's files: the tables are one more
// listener (report/run_tables.hpp), and a resumed run tells its earlier points
// once (`resumed`) to every listener. Checked on the real engine against what
// the run's own records.jsonl says, across a Ctrl-C and a resume whose
// database lost a point the JSONL kept.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <fstream>

#include "report/run_tables.hpp"
#include "report/sweep_tables.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "support/test_support.hpp"
#include "sweep/run_session.hpp"
#include "tiny_request.hpp"
#include "util/json_file.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

RunRequest four_points(const std::filesystem::path& dir) {
  return test::tiny_request(dir, test::tiny_twin().string(), "0,64,128,192", "tables");
}

// Ctrl-C as the sweep sees it: the stop flag, set once the first point is on disk.
class StopAfterFirstPoint : public RunListener {
 public:
  explicit StopAfterFirstPoint(std::atomic<bool>& stop) : stop_(stop) {}
  void point(const Record&) override { stop_ = true; }

 private:
  std::atomic<bool>& stop_;
};

// The run as its own records.jsonl has it.
std::vector<Record> records_of(const std::filesystem::path& run) {
  return read_records_jsonl(run / "records.jsonl");
}

void delete_point_rows(const std::filesystem::path& db, const std::string& run_id) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  // As the store deletes: its samples and counters go with the point (a kill
  // before the store's transaction committed leaves none of the three).
  const std::string sql =
      "PRAGMA foreign_keys = ON; DELETE FROM points WHERE run_id = '" + run_id + "'";
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
}

TEST(RunTables, TablesNoiseAndTheDatabaseFollowTheEventsAcrossAResume) {
  const std::filesystem::path dir = test::scratch_dir();
  std::filesystem::path run;
  std::string run_id;
  {
    std::atomic<bool> stop{false};
    StopAfterFirstPoint stopper(stop);
    RunSession session(four_points(dir));
    session.listen(stopper);
    session.open();
    run = session.dir().path();
    run_id = session.dir().run_id();
    EXPECT_EQ(session.run(stop).status, RunStatus::kInterrupted);
    ASSERT_EQ(records_of(run).size(), 1u);
    EXPECT_EQ(session.tables_text(TableWidth::kWide), render_run_tables(records_of(run)).markdown);
  }
  // A kill between the JSONL and the database: the database lost the point.
  delete_point_rows(dir / "results.sqlite", run_id);
  RunRequest again;
  again.resume = run;
  again.logical_cpus = 1;
  RunSession resumed(again);
  resumed.open();
  std::atomic<bool> stop{false};
  EXPECT_EQ(resumed.run(stop).status, RunStatus::kComplete);
  const std::vector<Record> all = records_of(run);
  ASSERT_EQ(all.size(), 4u);
  const RunTables expected = render_run_tables(all);
  EXPECT_EQ(resumed.tables_text(TableWidth::kWide), expected.markdown);
  // What stdout gets: the same points in a terminal's 120 columns (issue 48).
  EXPECT_EQ(resumed.tables_text(TableWidth::kCompact), expected.terminal);
  EXPECT_LE(widest_line(expected.terminal), kTerminalWidth) << expected.terminal;
  std::ifstream in(run / "tables.md");
  const std::string tables_md((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(tables_md, "# " + run_id + "\n\n" + expected.markdown);
  for (const auto& [name, text] : expected.files) {
    std::ifstream f(run / "sweep-bench" / name);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(f)), {}), text) << name;
  }
  const nlohmann::json meta = read_json_file(run / "meta.json", "meta");
  EXPECT_EQ(meta["noise"], noise_summary(all));
  SqliteStore store(dir / "results.sqlite", SqliteStore::Mode::kReadOnly);
  EXPECT_EQ(store.finished_point_keys(run_id).size(), 4u) << "the earlier point backfilled";
}

TEST(RunTables, AFailedRunWritesNoTablesAndTheWriterReadsNoFile) {
  const std::filesystem::path dir = test::scratch_dir();
  std::filesystem::create_directories(dir);
  RunTablesWriter writer(dir, "t");
  Record r;
  r.ok = true;
  writer.point(r);
  writer.end(RunMeta{}, RunStatus::kFailed);
  EXPECT_FALSE(std::filesystem::exists(dir / "tables.md"));
  EXPECT_TRUE(writer.markdown().empty());
  writer.resumed({r});  // earlier points go before the run's own
  EXPECT_EQ(writer.noise(), noise_summary({r, r}));
  writer.end(RunMeta{}, RunStatus::kPointsFailed);
  EXPECT_TRUE(std::filesystem::exists(dir / "tables.md"));
  EXPECT_EQ(writer.markdown(), render_run_tables({r, r}).markdown);
}

}  // namespace
}  // namespace moesweep
