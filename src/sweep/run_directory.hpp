#pragma once
// A run's home: results/runs/<YYYYmmdd-HHMMSS>-<name>/ holding meta.json,
// records.jsonl, samples.jsonl, records.csv and tables.md. meta.json is
// rewritten atomically at the start ("running") and the end (complete,
// interrupted, points_failed), so a reader can tell a finished run from one
// that died.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "results/file_sinks.hpp"
#include "sweep/run_observer.hpp"

namespace moesweep {

class RunDirectory {
 public:
  // Creates a new directory under `root` (default results/runs).
  static RunDirectory create(const std::filesystem::path& root, const std::string& name);
  // Reopens an existing run (resume).
  static RunDirectory open(const std::filesystem::path& dir);

  const std::filesystem::path& path() const { return dir_; }
  const std::string& run_id() const { return run_id_; }
  void write_meta(const nlohmann::json& meta) const;
  nlohmann::json read_meta() const;
  std::filesystem::path file(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
  std::string run_id_;
};

// samples.jsonl: every timed sample as it is measured.
class SampleLog : public RunObserver {
 public:
  explicit SampleLog(const std::filesystem::path& path) : out_(path) {}
  void on_sample(const PlannedPoint& point, const char* phase, int rep, double seconds,
                 int tokens) override;

 private:
  DurableAppender out_;
};

}  // namespace moesweep
