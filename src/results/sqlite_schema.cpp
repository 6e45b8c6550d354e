#include "results/sqlite_schema.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "util/error.hpp"

namespace moesweep {
namespace {

// One entry per version; entry i takes the database from version i to i + 1.
// Never edit a shipped entry: add a new one (users' files hold the old shape).
const std::vector<const char*>& migrations() {
  static const std::vector<const char*> steps = {
      // 0 -> 1: the first schema.
      R"sql(
CREATE TABLE runs (
  run_id      TEXT PRIMARY KEY,
  name        TEXT NOT NULL DEFAULT '',
  run_dir     TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL DEFAULT 'running',  -- running|complete|interrupted|points_failed
  started_at  TEXT NOT NULL,                    -- UTC, ISO 8601
  finished_at TEXT,
  meta_json   TEXT NOT NULL DEFAULT '{}'        -- the run's meta.json
);
-- meta.json flattened to JSON pointers ("/engine/commit" -> "abc123"), so
-- runs can be filtered by engine, CPU or build without parsing JSON.
CREATE TABLE environment (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT,
  PRIMARY KEY (run_id, key)
);
CREATE TABLE points (
  run_id      TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  point_key   TEXT NOT NULL,  -- PointParams::key_string()
  point_index INTEGER NOT NULL,
  ok          INTEGER NOT NULL,
  error       TEXT,
  model TEXT, quant TEXT, n_ctx INTEGER, n_batch INTEGER, n_ubatch INTEGER,
  type_k TEXT, type_v TEXT, flash_attn INTEGER, n_threads INTEGER, n_threads_batch INTEGER,
  pp INTEGER, tg INTEGER, n_kv INTEGER,
  s_pp_mean REAL, s_pp_sd REAL, s_tg_mean REAL, s_tg_sd REAL,
  record_json TEXT NOT NULL,  -- record_to_json(): the lossless copy readers load
  recorded_at TEXT NOT NULL,
  PRIMARY KEY (run_id, point_key)
);
CREATE TABLE samples (
  run_id       TEXT NOT NULL,
  point_key    TEXT NOT NULL,
  phase        TEXT NOT NULL CHECK (phase IN ('pp', 'tg')),
  rep          INTEGER NOT NULL,
  seconds      REAL NOT NULL,
  tokens_per_s REAL NOT NULL,
  PRIMARY KEY (run_id, point_key, phase, rep),
  FOREIGN KEY (run_id, point_key) REFERENCES points(run_id, point_key) ON DELETE CASCADE
);
CREATE TABLE counters (
  run_id      TEXT NOT NULL,
  point_key   TEXT NOT NULL,
  phase       TEXT NOT NULL CHECK (phase IN ('pp', 'tg')),
  metric      TEXT NOT NULL,
  value       REAL,  -- NULL when the counter was not available
  unavailable TEXT,  -- why not, as the counter backend said
  PRIMARY KEY (run_id, point_key, phase, metric),
  FOREIGN KEY (run_id, point_key) REFERENCES points(run_id, point_key) ON DELETE CASCADE
);
CREATE INDEX points_by_shape ON points (model, quant, n_threads, n_kv);
)sql",
      // 1 -> 2: serve-bench (serve kind): one row per workload, one per request.
      R"sql(
CREATE TABLE serve_workloads (
  run_id       TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  workload     TEXT NOT NULL,
  kind         TEXT NOT NULL,  -- prompt-cache | multi-turn | batch
  server       TEXT NOT NULL,  -- the URL benchmarked
  model        TEXT,
  requests     INTEGER NOT NULL,
  failed       INTEGER NOT NULL,
  wall_s       REAL,
  summary_json TEXT NOT NULL,  -- percentiles, cache hit ratio, /metrics deltas, levels
  recorded_at  TEXT NOT NULL,
  PRIMARY KEY (run_id, workload)
);
CREATE TABLE serve_requests (
  run_id TEXT NOT NULL, workload TEXT NOT NULL, idx INTEGER NOT NULL,
  task TEXT NOT NULL, ok INTEGER NOT NULL, error TEXT, concurrency INTEGER,
  prompt_tokens INTEGER, generated INTEGER, cache_n INTEGER,
  prompt_n INTEGER, prompt_ms REAL, predicted_n INTEGER, predicted_ms REAL,
  ttft_ms REAL, itl_mean_ms REAL, itl_p50_ms REAL, itl_p99_ms REAL, e2e_ms REAL, start_s REAL,
  PRIMARY KEY (run_id, workload, idx),
  FOREIGN KEY (run_id, workload) REFERENCES serve_workloads(run_id, workload) ON DELETE CASCADE
);
)sql",
      // 2 -> 3: serve-bench server configurations (-t/-c/--parallel/--cache-ram
      // axes): one workload row per configuration. SQLite cannot change a
      // primary key in place, so the two tables are rebuilt; v2 rows get
      // config 'default'.
      R"sql(
CREATE TABLE serve_workloads_v2 AS SELECT * FROM serve_workloads;
CREATE TABLE serve_requests_v2 AS SELECT * FROM serve_requests;
DROP TABLE serve_requests;
DROP TABLE serve_workloads;
CREATE TABLE serve_workloads (
  run_id       TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  config       TEXT NOT NULL DEFAULT 'default',  -- "t=2 np=4": the axes' values
  workload     TEXT NOT NULL,
  kind         TEXT NOT NULL,  -- prompt-cache | multi-turn | batch | cold-start
  server       TEXT NOT NULL,  -- the URL benchmarked
  model        TEXT,
  threads      INTEGER,        -- what llama-server was given; NULL: its default
  ctx_size     INTEGER,
  parallel     INTEGER,
  cache_ram    INTEGER,
  requests     INTEGER NOT NULL,
  failed       INTEGER NOT NULL,
  wall_s       REAL,
  summary_json TEXT NOT NULL,  -- percentiles, cache hit ratio, /metrics deltas, levels
  recorded_at  TEXT NOT NULL,
  PRIMARY KEY (run_id, config, workload)
);
CREATE TABLE serve_requests (
  run_id TEXT NOT NULL, config TEXT NOT NULL DEFAULT 'default', workload TEXT NOT NULL,
  idx INTEGER NOT NULL,
  task TEXT NOT NULL, ok INTEGER NOT NULL, error TEXT, concurrency INTEGER,
  prompt_tokens INTEGER, generated INTEGER, cache_n INTEGER,
  prompt_n INTEGER, prompt_ms REAL, predicted_n INTEGER, predicted_ms REAL,
  ttft_ms REAL, itl_mean_ms REAL, itl_p50_ms REAL, itl_p99_ms REAL, e2e_ms REAL, start_s REAL,
  prompt_tokens_exact INTEGER NOT NULL DEFAULT 1,  -- 0: prompt_tokens counts words (OpenAI API)
  usage_prompt_tokens INTEGER, usage_completion_tokens INTEGER,
  PRIMARY KEY (run_id, config, workload, idx),
  FOREIGN KEY (run_id, config, workload)
    REFERENCES serve_workloads(run_id, config, workload) ON DELETE CASCADE
);
INSERT INTO serve_workloads (run_id, workload, kind, server, model, requests, failed, wall_s,
                             summary_json, recorded_at)
  SELECT run_id, workload, kind, server, model, requests, failed, wall_s, summary_json,
         recorded_at FROM serve_workloads_v2;
INSERT INTO serve_requests (run_id, workload, idx, task, ok, error, concurrency, prompt_tokens,
                            generated, cache_n, prompt_n, prompt_ms, predicted_n, predicted_ms,
                            ttft_ms, itl_mean_ms, itl_p50_ms, itl_p99_ms, e2e_ms, start_s)
  SELECT run_id, workload, idx, task, ok, error, concurrency, prompt_tokens, generated, cache_n,
         prompt_n, prompt_ms, predicted_n, predicted_ms, ttft_ms, itl_mean_ms, itl_p50_ms,
         itl_p99_ms, e2e_ms, start_s FROM serve_requests_v2;
DROP TABLE serve_requests_v2;
DROP TABLE serve_workloads_v2;
)sql",
  };
  return steps;
}

UserError corrupt_error(const SqliteDb& db, const std::string& why) {
  return UserError(
      fmt::format("results database '{}' is not a readable SQLite database ({})", db.path(), why),
      "a database written by moesweep, or a path that does not exist yet",
      "the file was left untouched; move it aside and pass --db with a new path "
      "(the runs' records.jsonl files hold the same records)");
}

int check_in_snapshot(SqliteDb& db) {
  int64_t version = 0;
  try {
    version = db.pragma_int("user_version");
    // quick_check reads every page: a torn or overwritten file shows here, before
    // anything writes to it. Our databases are megabytes, so this costs little.
    SqliteStmt check(db, "PRAGMA quick_check(1)");
    std::string verdict = check.step() ? check.column_text(0) : "no answer";
    if (verdict != "ok") throw corrupt_error(db, verdict);
  } catch (const UserError&) {
    throw;
  } catch (const SqliteError& e) {
    // Only a file SQLite cannot make sense of is "not a database"; a busy,
    // read-only or unreadable one is the caller's to report as that.
    if (e.primary() != SQLITE_NOTADB && e.primary() != SQLITE_CORRUPT) throw;
    throw corrupt_error(db, db.last_error());
  } catch (const std::exception& e) {
    throw corrupt_error(db, db.last_error());
  }
  if (version > kResultsSchemaVersion) {
    throw UserError(
        fmt::format("results database '{}' has schema version {}, newer than this moesweep "
                    "understands ({})",
                    db.path(), version, kResultsSchemaVersion),
        fmt::format("schema version {} or older", kResultsSchemaVersion),
        "the file was left untouched; use the newer moesweep that wrote it, or pass --db with "
        "another path");
  }
  if (version == 0) {
    // Version 0 must mean "empty": a foreign database (someone else's tables)
    // is not ours to add tables to.
    SqliteStmt tables(db, "SELECT count(*) FROM sqlite_master");
    if (tables.step() && tables.column_int(0) > 0) {
      throw UserError(
          fmt::format("'{}' is an SQLite database, but not one moesweep wrote (user_version 0 "
                      "with tables in it)",
                      db.path()),
          "a moesweep results database or a new path",
          "the file was left untouched; pass --db with another path");
    }
  }
  return static_cast<int>(version);
}

}  // namespace

int check_results_schema(SqliteDb& db) {
  // One read transaction: the version and the table count below come from
  // the same snapshot even while another sweep migrates the file (read apart,
  // "version 0" then "has tables" looked like someone else's database).
  db.exec("BEGIN");
  try {
    const int version = check_in_snapshot(db);
    db.exec("COMMIT");
    return version;
  } catch (...) {
    try {
      db.exec("ROLLBACK");
    } catch (const std::exception&) {  // nothing was written: nothing to undo
    }
    throw;
  }
}

void migrate_results_schema(SqliteDb& db) {
  const auto& steps = migrations();
  for (;;) {
    SqliteTransaction tx(db);
    // Read under the write lock: another sweep may have migrated the file
    // since this one checked it (two sweeps creating one database at once).
    const int64_t v = db.pragma_int("user_version");
    if (v >= kResultsSchemaVersion) return;  // the guard rolls back the empty transaction
    db.exec(steps.at(static_cast<size_t>(v)));
    db.exec(fmt::format("PRAGMA user_version = {}", v + 1));
    tx.commit();
  }
}

}  // namespace moesweep
