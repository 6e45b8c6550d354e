// The serve tables in the results database: schema v3's migration of a v2
// file (config added to the key) and two configurations of one workload kept
// side by side.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "results/serve_store.hpp"
#include "results/sqlite_schema.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

std::string query(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  sqlite3_open(db.string().c_str(), &h);
  std::string out;
  auto add_row = [](void* acc, int n, char** values, char**) {
    auto& text = *static_cast<std::string*>(acc);
    for (int i = 0; i < n; ++i) {
      if (i) text += '|';
      text += values[i] ? values[i] : "";
    }
    text += "\n";
    return 0;
  };
  char* err = nullptr;
  if (sqlite3_exec(h, sql.c_str(), add_row, &out, &err) != SQLITE_OK) {
    out = std::string("error: ") + (err ? err : "?");
    sqlite3_free(err);
  }
  sqlite3_close(h);
  return out;
}

nlohmann::json summary(const std::string& config, int parallel) {
  return {{"workload", "b"},
          {"kind", "batch"},
          {"requests", 1},
          {"failed", 0},
          {"wall_s", 1.0},
          {"config", config},
          {"server_settings",
           {{"threads", nullptr}, {"ctx-size", 2048}, {"parallel", parallel}, {"cache-ram", -1}}}};
}

nlohmann::json request() {
  return {{"task", "c1 doc 1"},       {"ok", true},     {"ttft_ms", 12.5},
          {"e2e_ms", 40.0},           {"generated", 4}, {"prompt_tokens_exact", false},
          {"usage_prompt_tokens", 80}};
}

TEST(ServeStore, AVersion2FileIsMigratedAndConfigurationsAreKeptApart) {
  const auto db = test::scratch_dir() / "db.sqlite";
  const ServeRunRow run{"r1", "serve", "/tmp/r1", "complete", {{"kind", "serve"}}};
  store_serve_workload(db, run, "http://127.0.0.1:1", "m.gguf", summary("np=1", 1), {request()});
  // Turn the file back into what schema v2 wrote: the tables without config.
  ASSERT_EQ(query(db, R"(
      DROP TABLE serve_requests; DROP TABLE serve_workloads;
      CREATE TABLE serve_workloads (run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
        workload TEXT NOT NULL, kind TEXT NOT NULL, server TEXT NOT NULL, model TEXT,
        requests INTEGER NOT NULL, failed INTEGER NOT NULL, wall_s REAL,
        summary_json TEXT NOT NULL, recorded_at TEXT NOT NULL, PRIMARY KEY (run_id, workload));
      CREATE TABLE serve_requests (run_id TEXT NOT NULL, workload TEXT NOT NULL,
        idx INTEGER NOT NULL, task TEXT NOT NULL, ok INTEGER NOT NULL, error TEXT,
        concurrency INTEGER, prompt_tokens INTEGER, generated INTEGER, cache_n INTEGER,
        prompt_n INTEGER, prompt_ms REAL, predicted_n INTEGER, predicted_ms REAL, ttft_ms REAL,
        itl_mean_ms REAL, itl_p50_ms REAL, itl_p99_ms REAL, e2e_ms REAL, start_s REAL,
        PRIMARY KEY (run_id, workload, idx));
      INSERT INTO serve_workloads VALUES ('r1', 'old', 'batch', 'u', 'm', 1, 0, 1.0, '{}', 't');
      INSERT INTO serve_requests (run_id, workload, idx, task, ok, ttft_ms)
        VALUES ('r1', 'old', 0, 'c1 doc 1', 1, 9.5);
      PRAGMA user_version = 2;)"),
            "");
  store_serve_workload(db, run, "http://127.0.0.1:1", "m.gguf", summary("np=1", 1), {request()});
  store_serve_workload(db, run, "http://127.0.0.1:1", "m.gguf", summary("np=2", 2), {request()});
  EXPECT_EQ(query(db, "PRAGMA user_version"), std::to_string(kResultsSchemaVersion) + "\n");
  EXPECT_EQ(query(db,
                  "SELECT config, workload, threads, ctx_size, parallel, cache_ram "
                  "FROM serve_workloads ORDER BY config, workload"),
            "default|old||||\nnp=1|b||2048|1|-1\nnp=2|b||2048|2|-1\n");
  EXPECT_EQ(query(db,
                  "SELECT config, workload, ttft_ms, prompt_tokens_exact, "
                  "usage_prompt_tokens FROM serve_requests ORDER BY config, workload"),
            "default|old|9.5|1|\nnp=1|b|12.5|0|80\nnp=2|b|12.5|0|80\n");
}

}  // namespace
}  // namespace moesweep
