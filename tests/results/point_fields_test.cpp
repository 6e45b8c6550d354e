// The field table is the only list of PointParams' fields: every member is in
// it once, and every field survives JSONL, CSV and SQLite.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "results/file_sinks.hpp"
#include "results/point_fields.hpp"
#include "results/sqlite_store.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

// Converts to any member type: counts an aggregate's members (brace init).
struct AnyMember {
  template <class T>
  operator T() const;  // NOLINT: declared only, used in unevaluated context
};

template <class T, class... A>
constexpr size_t member_count() {
  if constexpr (requires { T{A{}..., AnyMember{}}; }) {
    return member_count<T, A..., AnyMember>();
  } else {
    return sizeof...(A);
  }
}

// Every field off its default: strings "v-<n>", ints 1, bools true.
PointParams all_set() {
  PointParams p;
  int n = 0;
  for (const PointField& f : point_fields()) {
    std::visit(
        [&](auto m) {
          using T = std::remove_reference_t<decltype(p.*m)>;
          if constexpr (std::is_same_v<T, std::string>) {
            p.*m = "v-" + std::to_string(n++);
          } else {
            p.*m = T{1};
          }
        },
        f.member);
  }
  return p;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out(1);  // keeps a trailing empty cell (the error column)
  for (char c : line) {
    if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

TEST(PointFields, EveryMemberOfPointParamsIsInTheTableOnce) {
  std::vector<FieldMember> members;  // member pointers compare only for equality
  for (const PointField& f : point_fields()) {
    EXPECT_EQ(std::count(members.begin(), members.end(), f.member), 0)
        << "a member is in the table twice";
    members.push_back(f.member);
    EXPECT_TRUE(f.json || f.sweep_bench) << "a field with no JSONL name is lost on reading";
  }
  EXPECT_EQ(members.size(), member_count<PointParams>())
      << "PointParams has a member that is not in point_fields()";
}

TEST(PointFields, EveryFieldSurvivesJsonl) {
  Record r;
  r.params = all_set();
  const Record back = record_from_json(nlohmann::json::parse(record_to_json(r).dump()));
  for (const PointField& f : point_fields()) {
    EXPECT_EQ(field_text(f, back.params), field_text(f, r.params)) << column_name(f);
  }
  EXPECT_EQ(back.params.key_string(), r.params.key_string());
}

TEST(PointFields, JsonlLineStartsWithSweepBenchKeysInTheirOrder) {
  const auto j = record_to_json(Record{});
  const std::vector<std::string> sweep_bench = {
      "n_kv_max",  "n_batch",         "n_ubatch", "flash_attn", "n_gpu_layers",
      "n_threads", "n_threads_batch", "pp",       "tg",         "n_kv",
      "t_pp",      "speed_pp",        "t_tg",     "speed_tg"};
  std::vector<std::string> first;
  for (const auto& [key, value] : j.items()) {
    if (first.size() < sweep_bench.size()) first.push_back(key);
  }
  EXPECT_EQ(first, sweep_bench);
}

TEST(PointFields, EveryCsvFieldIsInItsColumn) {
  Record r;
  r.params = all_set();
  const auto header = split(csv_header());
  const auto row = split(csv_row(r));
  ASSERT_EQ(header.size(), row.size());
  int columns = 0;
  for (const PointField& f : point_fields()) {
    if (!f.csv) continue;
    ++columns;
    const auto at = std::find(header.begin(), header.end(), column_name(f));
    ASSERT_NE(at, header.end()) << column_name(f);
    EXPECT_EQ(row[at - header.begin()], field_text(f, r.params)) << column_name(f);
  }
  EXPECT_GT(columns, 0);
}

TEST(PointFields, EverySqlFieldIsInItsColumnAndTheRecordReadsBack) {
  const auto db = test::scratch_dir() / "fields.sqlite";
  Record r;
  r.run_id = "run-fields";
  r.params = all_set();
  {
    SqliteStore store(db, SqliteStore::Mode::kReadWrite);
    store.add_record(r);
    const auto back = store.load_records(r.run_id);
    ASSERT_EQ(back.size(), 1u);
    for (const PointField& f : point_fields()) {
      EXPECT_EQ(field_text(f, back[0].params), field_text(f, r.params)) << column_name(f);
    }
  }
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  for (const PointField& f : point_fields()) {
    if (!f.sql) continue;
    sqlite3_stmt* st = nullptr;
    const std::string sql = std::string("SELECT ") + column_name(f) + " FROM points";
    ASSERT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    EXPECT_EQ(std::string(text ? text : ""), field_text(f, r.params)) << column_name(f);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
}

}  // namespace
}  // namespace moesweep
