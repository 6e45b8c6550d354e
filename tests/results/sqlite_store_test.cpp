// The results database on real files: round trip, resume, and refusing (and
// not touching) files it must not write.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "results/run_source.hpp"
#include "results/sqlite_schema.hpp"
#include "results/sqlite_store.hpp"
#include "sample_sets.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using test::make_record;
using test::normal_samples;

std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunMeta meta_for(const std::string& run_id) {
  RunMeta m;
  m.run_id = run_id;
  m.name = "unit";
  m.run_dir = "results/runs/" + run_id;
  m.build.emplace();
  m.build->engine.commit = "abc123";
  m.kind_facts = {{"threads", {1, 2}}};
  return m;
}

int64_t count_rows(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr);
  int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

TEST(SqliteStore, RecordsRoundTripWithSamplesAndCounters) {
  const auto db = test::scratch_dir() / "r.sqlite";
  const Record a =
      make_record("run-a", 0, 1, 0, normal_samples(1, 3, 100, 2), normal_samples(2, 3, 10, 0.2));
  const Record b =
      make_record("run-a", 1, 2, 256, normal_samples(3, 3, 180, 2), normal_samples(4, 3, 17, 0.2));
  {
    SqliteSink sink(db);
    sink.begin(meta_for("run-a"));
    sink.point(a);
    sink.point(b);
    sink.end(meta_for("run-a"), RunStatus::kComplete);
  }
  SqliteStore store(db, SqliteStore::Mode::kReadOnly);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "complete");
  EXPECT_EQ(runs[0].n_points, 2);
  EXPECT_EQ(runs[0].meta["build"]["engine"]["commit"], "abc123");
  const auto records = store.load_records("run-a");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].params.key_string(), b.params.key_string());
  EXPECT_EQ(records[1].tg.tokens_per_s, b.tg.tokens_per_s);
  EXPECT_DOUBLE_EQ(records[1].tg.speed.mean, b.tg.speed.mean);
  EXPECT_EQ(records[0].pp.counters, a.pp.counters);
  EXPECT_EQ(count_rows(db, "SELECT count(*) FROM samples"), 12);
  EXPECT_EQ(count_rows(db, "SELECT count(*) FROM counters WHERE value IS NULL"), 2);
  EXPECT_EQ(count_rows(db, "SELECT count(*) FROM environment WHERE key = '/build/engine/commit'"),
            1);
  EXPECT_EQ(count_rows(db, "PRAGMA user_version"), kResultsSchemaVersion);
}

TEST(SqliteStore, ResumeSkipsFinishedAndRetriesFailedPoints) {
  const auto db = test::scratch_dir() / "resume.sqlite";
  Record failed = make_record("run-r", 1, 2, 0, {}, {});
  failed.ok = false;
  failed.error = "context creation failed";
  {
    SqliteSink sink(db);
    sink.begin(meta_for("run-r"));
    sink.point(make_record("run-r", 0, 1, 0, {100, 101, 99}, {10, 10.1, 9.9}));
    sink.point(failed);
    // no end(): the process died here
  }
  SqliteStore store(db, SqliteStore::Mode::kReadWrite);
  auto info = store.find_run("run-r");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->status, "running");
  EXPECT_EQ(info->n_failed, 1);
  auto done = store.finished_point_keys("run-r");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done.count(make_record("run-r", 0, 1, 0, {}, {}).params.key_string()));
  // The resumed run measures the failed point again; it replaces the failed row.
  store.begin_run(meta_for("run-r"));
  store.add_record(make_record("run-r", 1, 2, 0, {150, 151, 149}, {15, 15.1, 14.9}));
  store.end_run("run-r", RunStatus::kComplete);
  EXPECT_EQ(store.finished_point_keys("run-r").size(), 2u);
  info = store.find_run("run-r");
  EXPECT_EQ(info->n_points, 2);
  EXPECT_EQ(info->n_failed, 0);
  EXPECT_EQ(info->status, "complete");
}

TEST(SqliteStore, FindsRunsByIdPrefixAndDirectory) {
  const auto dir = test::scratch_dir();
  const auto db = dir / "find.sqlite";
  const auto run_dir = dir / "20261129-200000-ci";
  std::filesystem::create_directories(run_dir);
  std::ofstream(run_dir / "meta.json") << R"({"run_id": "20261129-200000-ci"})";
  SqliteStore store(db, SqliteStore::Mode::kReadWrite);
  store.begin_run(meta_for("20261129-200000-ci"));
  store.begin_run(meta_for("20261129-210000-ci"));
  EXPECT_EQ(store.find_run(run_dir.string())->run_id, "20261129-200000-ci");
  EXPECT_EQ(store.find_run("20261129-21")->run_id, "20261129-210000-ci");
  EXPECT_FALSE(store.find_run("nope"));
  EXPECT_THROW(store.find_run("20261129"), UserError);  // ambiguous
}

TEST(SqliteStore, CorruptFileIsRefusedAndUntouched) {
  const auto db = test::scratch_dir() / "corrupt.sqlite";
  std::ofstream(db, std::ios::binary) << std::string(4096, 'x') << "not a database";
  const std::string before = read_bytes(db);
  try {
    SqliteStore store(db, SqliteStore::Mode::kReadWrite);
    FAIL() << "opened a corrupt file";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("not a readable SQLite database"), std::string::npos) << e.what();
    EXPECT_NE(e.fix().find("untouched"), std::string::npos);
  }
  EXPECT_EQ(read_bytes(db), before);
  EXPECT_FALSE(std::filesystem::exists(db.string() + "-wal"));
}

TEST(SqliteStore, TornDatabaseIsRefusedAndUntouched) {
  const auto db = test::scratch_dir() / "torn.sqlite";
  {
    SqliteSink sink(db);
    sink.begin(meta_for("run-t"));
    for (int i = 0; i < 50; ++i) {
      sink.point(make_record("run-t", i, 1 + i % 4, 256 * i, normal_samples(i, 5, 100, 1),
                             normal_samples(i + 99, 5, 10, 1)));
    }
    sink.end(meta_for("run-t"), RunStatus::kComplete);
  }
  {
    SqliteStore checkpoint(db, SqliteStore::Mode::kReadWrite);  // last close folds the WAL in
  }
  std::string bytes = read_bytes(db);
  ASSERT_GT(bytes.size(), 8192u);
  for (size_t i = 4096; i < bytes.size(); i += 7) bytes[i] = static_cast<char>(i * 31);
  std::ofstream(db, std::ios::binary | std::ios::trunc) << bytes;
  std::filesystem::remove(db.string() + "-wal");
  std::filesystem::remove(db.string() + "-shm");
  EXPECT_THROW(SqliteStore(db, SqliteStore::Mode::kReadOnly), UserError);
  EXPECT_THROW(SqliteStore(db, SqliteStore::Mode::kReadWrite), UserError);
  EXPECT_EQ(read_bytes(db), bytes);
}

TEST(SqliteStore, NewerSchemaIsRefusedAndUntouched) {
  const auto db = test::scratch_dir() / "newer.sqlite";
  {
    SqliteStore store(db, SqliteStore::Mode::kReadWrite);
    store.begin_run(meta_for("run-n"));
  }
  sqlite3* h = nullptr;
  sqlite3_open(db.c_str(), &h);
  sqlite3_exec(h, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99", nullptr, nullptr,
               nullptr);
  sqlite3_close(h);
  const std::string before = read_bytes(db);
  try {
    SqliteStore store(db, SqliteStore::Mode::kReadWrite);
    FAIL() << "opened a newer schema";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("schema version 99"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_bytes(db), before);
  EXPECT_FALSE(std::filesystem::exists(db.string() + "-wal"));
}

TEST(SqliteStore, ForeignDatabaseAndMissingFileAreRefused) {
  const auto dir = test::scratch_dir();
  const auto db = dir / "foreign.sqlite";
  sqlite3* h = nullptr;
  sqlite3_open(db.c_str(), &h);
  sqlite3_exec(h, "CREATE TABLE invoices (id INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  const std::string before = read_bytes(db);
  EXPECT_THROW(SqliteStore(db, SqliteStore::Mode::kReadWrite), UserError);
  EXPECT_EQ(read_bytes(db), before);
  EXPECT_THROW(SqliteStore(dir / "missing.sqlite", SqliteStore::Mode::kReadOnly), UserError);
  EXPECT_FALSE(std::filesystem::exists(dir / "missing.sqlite"));
}

TEST(SqliteStore, SinkBackfillsPointsTheJsonlHasAndTheDatabaseLacks) {
  const auto dir = test::scratch_dir();
  const auto db = dir / "backfill.sqlite";
  RunMeta meta = meta_for("run-b");
  meta.run_dir = (dir / "run-b").string();
  std::filesystem::create_directories(meta.run_dir);
  {
    SqliteSink sink(db);
    sink.begin(meta);
    sink.point(make_record("run-b", 0, 1, 0, {100, 101, 99}, {10, 10.1, 9.9}));
  }
  // The JSONL sink wrote two points; the kill came before the second reached SQLite.
  std::ofstream(std::filesystem::path(meta.run_dir) / "records.jsonl")
      << record_to_json(make_record("run-b", 0, 1, 0, {100, 101, 99}, {10, 10.1, 9.9})).dump()
      << "\n"
      << record_to_json(make_record("run-b", 1, 2, 0, {150, 151, 149}, {15, 15.1, 14.9})).dump()
      << "\n{\"n_kv_max\": 10";  // and a torn third line
  // The session reads the JSONL once and hands its points to every listener.
  SqliteSink resumed(db);
  resumed.begin(meta);
  resumed.resumed(read_records_jsonl(std::filesystem::path(meta.run_dir) / "records.jsonl"));
  EXPECT_EQ(resumed.store().finished_point_keys("run-b").size(), 2u);
}

TEST(SqliteStore, EmptyFileIsMigratedToTheCurrentSchema) {
  const auto db = test::scratch_dir() / "empty.sqlite";
  std::ofstream(db).close();  // zero bytes: SQLite's "new database"
  { SqliteStore store(db, SqliteStore::Mode::kReadWrite); }
  EXPECT_EQ(count_rows(db, "PRAGMA user_version"), kResultsSchemaVersion);
  // runs, environment, points, samples, counters; serve_workloads, serve_requests (v2)
  EXPECT_EQ(count_rows(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 7);
}

}  // namespace
}  // namespace moesweep
