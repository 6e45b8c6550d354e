#pragma once
// A run's home: results/runs/<YYYYmmdd-HHMMSS>-<name>/ holding meta.json,
// records.jsonl, samples.jsonl, records.csv and tables.md. meta.json is
// rewritten atomically at the start ("running") and the end (complete,
// interrupted, points_failed, failed), so a reader can tell a finished run from one
// that died.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "results/file_sinks.hpp"
#include "results/sink.hpp"

namespace moesweep {

class RunDirectory {
 public:
  // Refuses a run name no directory can carry (longer than kMaxNameLength).
  static void check_name(const std::string& name);
  static constexpr size_t kMaxNameLength = 200;  // NAME_MAX 255 less the time stamp
  // Creates a new directory under `root` (default results/runs).
  static RunDirectory create(const std::filesystem::path& root, const std::string& name);
  // A new, empty directory the caller made and named (merge's --out), as run `run_id`.
  static RunDirectory adopt(const std::filesystem::path& dir, const std::string& run_id);
  // Reopens an existing run (resume).
  static RunDirectory open(const std::filesystem::path& dir);

  const std::filesystem::path& path() const { return dir_; }
  const std::string& run_id() const { return run_id_; }
  void write_meta(const RunMeta& meta) const;  // meta.json, atomically (results/run_meta.hpp)
  RunMeta read_meta() const;                   // its typed reader
  std::filesystem::path file(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
  std::string run_id_;
};

// One sweep at a time writes a run directory: a second `--resume` of a run
// still being measured would append the same points again. An flock on
// DIR/.lock (the kernel drops it when the holder dies, so a killed sweep
// leaves nothing to clean up); the file holds the holder's PID for the
// message.
class RunLock {
 public:
  // Throws UserError (exit 2) naming the other process when the lock is held.
  explicit RunLock(const std::filesystem::path& dir);
  ~RunLock();
  RunLock(RunLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  RunLock& operator=(RunLock&&) = delete;

 private:
  int fd_ = -1;
};

// The files of a run's points, the one list: records.jsonl and records.csv
// (every point, durable before the next), samples.jsonl (every timed sample)
// and tokens.jsonl (every TG call's per-token times, results/token_file.hpp).
// A sweep writes them all through point_file_writers(), a merge the records
// (it copies the samples and tokens it keeps), a resume repairs them all.
struct PointFile {
  const char* name;
  bool json_lines;  // one JSON object a line (else CSV text)
  bool samples;     // from the sample or token_call event (else from the point event)
};
const std::vector<PointFile>& point_files();
// A listener per file of point_files() (without samples.jsonl and tokens.jsonl
// unless `samples`).
std::vector<std::unique_ptr<RunListener>> point_file_writers(const RunDirectory& dir, bool samples);

// samples.jsonl: every timed sample as it is measured.
class SampleLog : public RunListener {
 public:
  explicit SampleLog(const std::filesystem::path& path) : out_(path) {}
  void sample(const SampleEvent& s) override;

 private:
  DurableAppender out_;
};

}  // namespace moesweep
