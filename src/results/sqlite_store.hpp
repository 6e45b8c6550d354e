#pragma once
// The results database (results/moesweep.sqlite by default): every run, every
// point, every sample and counter, kept across runs. Written one transaction
// per finished point, so a killed sweep loses at most the point in flight.
// Tables: runs, environment, points, samples, counters (see sqlite_schema.cpp).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "results/sink.hpp"

namespace moesweep {

class SqliteDb;

struct RunInfo {
  std::string run_id;
  std::string name;
  std::string run_dir;
  std::string status;  // running|complete|interrupted|points_failed|failed
  std::string started_at, finished_at;
  int n_points = 0;  // rows in points, failed ones included
  int n_failed = 0;
  nlohmann::json meta = nlohmann::json::object();
};

class SqliteStore {
 public:
  enum class Mode {
    kReadOnly,   // compare, report, export: the file must exist; nothing is written
    kReadWrite,  // sweep: created if missing, migrated to the current schema
  };
  // Throws UserError (file untouched) for a corrupt file, a newer schema, a
  // foreign SQLite file, a path that cannot hold a database (empty, a
  // device, read-only), or (read-only) a missing file.
  SqliteStore(const std::filesystem::path& path, Mode mode);
  ~SqliteStore();
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  static std::filesystem::path default_path();  // results/moesweep.sqlite

  // A run that exists already (resume) goes back to status "running"; its
  // points stay.
  void begin_run(const RunMeta& meta);
  // Commits the point, its samples and counters in one transaction before
  // returning. A point measured again (resume retrying a failed point)
  // replaces the earlier row.
  void add_record(const Record& record);
  void end_run(const std::string& run_id, RunStatus status);

  std::vector<RunInfo> list_runs();  // oldest first
  // By exact run id, by run directory (its meta.json's run_id, or the stored
  // run_dir), or by a unique run-id prefix. Ambiguous prefixes throw UserError.
  std::optional<RunInfo> find_run(const std::string& run_id_or_dir);
  std::vector<Record> load_records(const std::string& run_id);  // by point index
  // Keys (PointParams::key_string) of the points that finished ok: what
  // `sweep --resume` skips. Failed points are left out so a resume retries them.
  std::set<std::string> finished_point_keys(const std::string& run_id);

  const std::filesystem::path& path() const { return path_; }

  // By exact run id only.
  std::optional<RunInfo> run_by_id(const std::string& run_id);

 private:
  void ensure_run_row(const std::string& run_id);

  std::filesystem::path path_;
  std::unique_ptr<SqliteDb> db_;
};

// The RunListener over SqliteStore: `moesweep sweep --db PATH` pushes one of these.
// resumed() copies into the database any finished earlier point it lacks: a
// sweep killed between its JSONL and SQLite sinks, then resumed from the
// JSONL, would otherwise never store that point here.
class SqliteSink : public RunListener {
 public:
  explicit SqliteSink(const std::filesystem::path& path);
  // A run of this id is stored already (merge picks ids no run has).
  bool has_run(const std::string& run_id) { return store_.run_by_id(run_id).has_value(); }
  void begin(const RunMeta& meta) override;
  void resumed(const std::vector<Record>& earlier) override;
  void point(const Record& record) override;
  void end(const RunMeta& meta, RunStatus status) override;
  SqliteStore& store() { return store_; }

 private:
  SqliteStore store_;
  std::string run_id_;
};

}  // namespace moesweep
