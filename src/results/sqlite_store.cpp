#include "results/sqlite_store.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>

#include "results/counter_fields.hpp"
#include "results/point_fields.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_db.hpp"
#include "results/sqlite_open.hpp"
#include "results/sqlite_schema.hpp"
#include "util/utc_time.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

std::optional<double> counter_value(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

std::string counter_unavailable(const nlohmann::json& v) {
  if (v.is_object() && v.contains("unavailable")) {
    const auto& why = v["unavailable"];
    return why.is_string() ? why.get<std::string>() : why.dump();
  }
  if (!v.is_number()) return v.dump();  // keep whatever the backend said
  return "";
}

// meta.json's run_id when `dir` is a run directory, else "" (a broken
// meta.json is an error: results/run_meta.hpp).
std::string run_id_in_dir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return "";
  const std::optional<RunMeta> meta = read_run_meta_if_present(dir);
  return meta ? meta->run_id : "";
}

// The points row: fixed columns, one column per SQL field of point_fields(), the record.
void insert_point_row(SqliteDb& db, const Record& r, const std::string& key) {
  std::string columns, slots;
  int n = 5;
  for (const PointField& f : point_fields()) {
    if (!f.sql) continue;
    columns += fmt::format("{}, ", column_name(f));
    slots += fmt::format("?{}, ", ++n);
  }
  auto ins = db.prepare(
      fmt::format("INSERT INTO points (run_id, point_key, point_index, ok, error, {}"
                  "s_pp_mean, s_pp_sd, s_tg_mean, s_tg_sd, record_json, recorded_at) VALUES "
                  "(?1, ?2, ?3, ?4, ?5, {}?{}, ?{}, ?{}, ?{}, ?{}, ?{})",
                  columns, slots, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6));
  ins.bind(1, r.run_id).bind(2, key).bind(3, r.point_index).bind(4, r.ok);
  if (r.ok) {
    ins.bind_null(5);
  } else {
    ins.bind(5, r.error);
  }
  n = 5;
  for (const PointField& f : point_fields()) {
    if (f.sql) bind_field(f, r.params, ins, ++n);
  }
  ins.bind(n + 1, r.pp.speed.mean).bind(n + 2, r.pp.speed.sd);
  ins.bind(n + 3, r.tg.speed.mean).bind(n + 4, r.tg.speed.sd);
  ins.bind(n + 5, record_to_json(r).dump()).bind(n + 6, utc_now_iso8601());
  ins.run();
}

}  // namespace

std::filesystem::path SqliteStore::default_path() {
  return "results/moesweep.sqlite";
}

SqliteStore::SqliteStore(const std::filesystem::path& path, Mode mode) : path_(path) {
  std::error_code ec;
  if (mode == Mode::kReadOnly && !path.empty() && !std::filesystem::exists(path, ec)) {
    throw UserError(fmt::format("results database '{}' does not exist", path.string()),
                    "a database a sweep wrote (moesweep sweep --db PATH)",
                    "pass --db with the path the sweep used, or name a run directory instead");
  }
  OpenedResultsDb opened = open_results_db(path, mode == Mode::kReadWrite);
  db_ = std::move(opened.db);
  if (mode == Mode::kReadOnly && opened.version < kResultsSchemaVersion) {
    throw UserError(
        fmt::format("results database '{}' has schema version {}; this command reads version {}",
                    path.string(), opened.version, kResultsSchemaVersion),
        "a database migrated by this moesweep",
        "run any `moesweep sweep --db` on it once to migrate it, or name run directories");
  }
}

SqliteStore::~SqliteStore() = default;

void SqliteStore::begin_run(const RunMeta& meta) {
  SqliteTransaction tx(*db_);
  auto upsert = db_->prepare(
      "INSERT INTO runs (run_id, name, run_dir, status, started_at, meta_json) "
      "VALUES (?1, ?2, ?3, ?6, ?4, ?5) "
      "ON CONFLICT(run_id) DO UPDATE SET status = ?6, finished_at = NULL, "
      "run_dir = excluded.run_dir, meta_json = excluded.meta_json");
  upsert.bind(1, meta.run_id)
      .bind(2, meta.name)
      .bind(3, meta.run_dir)
      .bind(4, utc_now_iso8601())
      .bind(5, to_json(meta).dump())
      .bind(6, run_status_name(RunStatus::kRunning));  // a resumed run runs again
  upsert.run();
  auto clear = db_->prepare("DELETE FROM environment WHERE run_id = ?1");
  clear.bind(1, meta.run_id).run();
  auto env = db_->prepare("INSERT INTO environment (run_id, key, value) VALUES (?1, ?2, ?3)");
  {
    const nlohmann::json flat = to_json(meta).flatten();  // items() must not outlive it
    for (const auto& [key, value] : flat.items()) {
      env.bind(1, meta.run_id).bind(2, key);
      if (value.is_string()) {
        env.bind(3, value.get<std::string>());
      } else {
        env.bind(3, value.dump());
      }
      env.run();
    }
  }
  tx.commit();
}

void SqliteStore::ensure_run_row(const std::string& run_id) {
  auto st = db_->prepare("INSERT OR IGNORE INTO runs (run_id, started_at) VALUES (?1, ?2)");
  st.bind(1, run_id).bind(2, utc_now_iso8601()).run();
}

void SqliteStore::add_record(const Record& r) {
  const std::string key = r.params.key_string();
  SqliteTransaction tx(*db_);
  ensure_run_row(r.run_id);
  // ON DELETE CASCADE removes the earlier samples and counters of this point.
  auto del = db_->prepare("DELETE FROM points WHERE run_id = ?1 AND point_key = ?2");
  del.bind(1, r.run_id).bind(2, key).run();
  insert_point_row(*db_, r, key);

  auto sample = db_->prepare(
      "INSERT INTO samples (run_id, point_key, phase, rep, seconds, tokens_per_s) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  auto counter = db_->prepare(
      "INSERT INTO counters (run_id, point_key, phase, metric, value, unavailable) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  for (const auto& [phase_name, phase] : {std::pair{"pp", &r.pp}, std::pair{"tg", &r.tg}}) {
    for (size_t i = 0; i < phase->seconds.size(); ++i) {
      const double ts = i < phase->tokens_per_s.size() ? phase->tokens_per_s[i] : 0.0;
      sample.bind(1, r.run_id).bind(2, key).bind(3, phase_name).bind(4, static_cast<int>(i));
      sample.bind(5, phase->seconds[i]).bind(6, ts).run();
    }
    if (!phase->counters.is_object()) continue;
    for (const auto& [metric, value] : phase->counters.items()) {
      if (is_counter_metadata(metric)) continue;  // records.jsonl keeps them
      counter.bind(1, r.run_id).bind(2, key).bind(3, phase_name).bind(4, metric);
      counter.bind_optional(5, counter_value(value));
      const std::string why = counter_unavailable(value);
      if (why.empty()) {
        counter.bind_null(6);
      } else {
        counter.bind(6, why);
      }
      counter.run();
    }
  }
  tx.commit();
}

void SqliteStore::end_run(const std::string& run_id, RunStatus status) {
  auto st = db_->prepare("UPDATE runs SET status = ?2, finished_at = ?3 WHERE run_id = ?1");
  st.bind(1, run_id).bind(2, run_status_name(status)).bind(3, utc_now_iso8601()).run();
}

namespace {
constexpr const char* kRunColumns =
    "SELECT r.run_id, r.name, r.run_dir, r.status, r.started_at, "
    "coalesce(r.finished_at, ''), r.meta_json, "
    "(SELECT count(*) FROM points p WHERE p.run_id = r.run_id), "
    "(SELECT count(*) FROM points p WHERE p.run_id = r.run_id AND p.ok = 0) FROM runs r ";

RunInfo run_from_row(const SqliteStmt& st) {
  RunInfo info;
  info.run_id = st.column_text(0);
  info.name = st.column_text(1);
  info.run_dir = st.column_text(2);
  info.status = st.column_text(3);
  info.started_at = st.column_text(4);
  info.finished_at = st.column_text(5);
  info.meta = parse_json_or_discarded(st.column_text(6));
  if (info.meta.is_discarded()) info.meta = nullptr;  // run_source refuses it, naming the run
  info.n_points = static_cast<int>(st.column_int(7));
  info.n_failed = static_cast<int>(st.column_int(8));
  return info;
}
}  // namespace

std::vector<RunInfo> SqliteStore::list_runs() {
  auto st = db_->prepare(std::string(kRunColumns) + "ORDER BY r.started_at, r.run_id");
  std::vector<RunInfo> runs;
  while (st.step()) runs.push_back(run_from_row(st));
  return runs;
}

std::optional<RunInfo> SqliteStore::run_by_id(const std::string& run_id) {
  auto st = db_->prepare(std::string(kRunColumns) + "WHERE r.run_id = ?1");
  st.bind(1, run_id);
  if (st.step()) return run_from_row(st);
  return std::nullopt;
}

std::optional<RunInfo> SqliteStore::find_run(const std::string& arg) {
  if (auto exact = run_by_id(arg)) return exact;
  if (std::string from_meta = run_id_in_dir(arg); !from_meta.empty()) {
    if (auto by_meta = run_by_id(from_meta)) return by_meta;
  }
  std::error_code ec;
  const auto wanted = std::filesystem::weakly_canonical(arg, ec);
  std::vector<RunInfo> prefixed;
  for (RunInfo& run : list_runs()) {
    if (!run.run_dir.empty() && !ec &&
        std::filesystem::weakly_canonical(run.run_dir, ec) == wanted) {
      return run;
    }
    if (run.run_id.rfind(arg, 0) == 0) prefixed.push_back(std::move(run));
  }
  if (prefixed.size() == 1) return prefixed.front();
  if (prefixed.size() > 1) {
    std::string names;
    for (const auto& run : prefixed) names += "\n    " + run.run_id;
    throw UserError(
        fmt::format("'{}' matches {} runs in '{}':{}", arg, prefixed.size(), path_.string(), names),
        "one run", "give more of the run id");
  }
  return std::nullopt;
}

std::vector<Record> SqliteStore::load_records(const std::string& run_id) {
  auto st = db_->prepare(
      "SELECT record_json FROM points WHERE run_id = ?1 ORDER BY point_index, point_key");
  st.bind(1, run_id);
  std::vector<Record> records;
  while (st.step()) {
    auto j = parse_json_or_discarded(st.column_text(0));
    // A row of ours, hand-edited or damaged: named, checked like a records.jsonl line.
    records.push_back(checked_record(j, fmt::format("{} (run {})", path_.string(), run_id)));
  }
  return records;
}

std::set<std::string> SqliteStore::finished_point_keys(const std::string& run_id) {
  auto st = db_->prepare("SELECT point_key FROM points WHERE run_id = ?1 AND ok = 1");
  st.bind(1, run_id);
  std::set<std::string> keys;
  while (st.step()) keys.insert(st.column_text(0));
  return keys;
}

SqliteSink::SqliteSink(const std::filesystem::path& path)
    : store_(path, SqliteStore::Mode::kReadWrite) {}

void SqliteSink::begin(const RunMeta& meta) {
  try {
    run_id_ = meta.run_id;
    store_.begin_run(meta);
  } catch (const SqliteError& e) {
    throw_as_user_error(store_.path(), e);
  }
}

void SqliteSink::resumed(const std::vector<Record>& earlier) {
  try {
    const std::set<std::string> stored = store_.finished_point_keys(run_id_);
    for (const Record& r : earlier) {
      if (!r.ok || stored.count(r.params.key_string())) continue;
      point(r);  // its run id is this run's when the line has none
    }
  } catch (const SqliteError& e) {
    throw_as_user_error(store_.path(), e);
  }
}

void SqliteSink::point(const Record& record) {
  try {
    if (record.run_id.empty() && !run_id_.empty()) {
      Record copy = record;
      copy.run_id = run_id_;
      store_.add_record(copy);
      return;
    }
    store_.add_record(record);
  } catch (const SqliteError& e) {  // e.g. the disk filled up mid-run
    throw_as_user_error(store_.path(), e);
  }
}

void SqliteSink::end(const RunMeta& meta, RunStatus status) {
  try {
    store_.end_run(meta.run_id, status);
  } catch (const SqliteError& e) {
    throw_as_user_error(store_.path(), e);
  }
}

}  // namespace moesweep
