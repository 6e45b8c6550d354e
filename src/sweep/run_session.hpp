#pragma once
// RunSession: one `moesweep sweep` from its flags to its finished run
// directory. It owns the run's lifecycle, so every caller (the CLI, a shard,
// a test) gets the same rules:
//   - where it starts: new settings, or a run to resume (locked, checked);
//   - every check a user can fail before anything is created;
//   - meta.json's state, one RunStatus: running, then complete, points_failed
//     (finished, some points failed), interrupted (Ctrl-C) or failed (an
//     error stopped it: a model that will not load, a full disk);
//   - its listeners (results/sink.hpp): meta.json, records.jsonl,
//     records.csv, samples.jsonl, the database and the tables, then the caller's
//     (progress); every one ended on every way out, errors included, so the
//     database row and meta.json never stay "running" once the session is
//     gone. The lock, meta.json and the endings are RunLifecycle's
//     (run/run_lifecycle.hpp), which serve-bench, trace and merge use too;
//   - tables.md and sweep-bench/ (src/report's RunTablesWriter, one more
//     listener, from the points it hears) and meta.json's noise summary.
// It never prints: notes and progress go to the listeners.
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "counters/counter_backend.hpp"
#include "engine/worker_launcher.hpp"
#include "report/run_tables.hpp"
#include "results/sink.hpp"
#include "run/run_directory.hpp"
#include "run/run_lifecycle.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_storage.hpp"
#include "sweep/runner.hpp"
#include "sweep/sample_length.hpp"

namespace moesweep {

// What the caller parsed, as plain values.
struct RunRequest {
  std::map<std::string, nlohmann::json> settings;  // new run: flags and profile merged
  std::string origin;                              // where the settings came from
  std::string profile_stem;                        // names an "adhoc" spec that came from a profile
  std::filesystem::path resume;                    // non-empty: continue this run directory
  std::vector<std::string> ignored_on_resume;      // flags typed beside --resume: refused
  std::filesystem::path out_dir = "results/runs";
  DatabaseFlags database;
  bool dry_run = false;                       // plan only: nothing is created or locked
  int logical_cpus = 1;                       // for the plan's thread checks
  std::vector<std::string> command_line;      // meta.json's command_line
  std::optional<MachineClass> machine_class;  // meta.json's machine_class (new runs)
  std::optional<NodeFacts> node;              // meta.json's node (new runs; issue 13)
  std::optional<ShardRef> shard;              // meta.json's shard (a new shard run)
  SweetSpotOptions sweet_spot;                // tables.md's sweet spot (--keep-pp, --keep-tg)
  // Called once with the plan before anything uses it (e.g. a shard keeps
  // its share), and the resumed run's meta.json (nullopt if new).
  std::function<void(Plan&, const std::optional<RunMeta>& resumed_meta)> adjust_plan;
};

class RunSession {
 public:
  // Reads (and, for a resume, locks and checks) where the run starts, and
  // plans it. Throws UserError for anything the user must fix; creates nothing.
  explicit RunSession(RunRequest request);
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  const Plan& plan() const { return plan_; }
  const std::string& origin() const { return origin_; }
  // How long each sample lasts, and why (sweep/sample_length.hpp).
  const RunSampleTime& sample_time() const { return sample_time_; }
  bool resumed() const { return resumed_.has_value(); }

  // Adds a listener after the session's own (so it hears of a point once
  // the point is on disk); call before open(). It must outlive the session.
  void listen(RunListener& listener) { added_listeners_.push_back(&listener); }
  // Checks model files and the database, then creates (or reopens) the run
  // directory: meta.json says "running" and every listener has begun.
  void open();
  // Measures until done or `stop`, and ends every listener. A thrown error
  // (here or in open) leaves meta.json and the database "failed" with the
  // error and every finished point on disk, and is rethrown.
  RunOutcome run(const std::atomic<bool>& stop);

  // After run(): the run's tables, from every record of the run (a resumed
  // one's earlier points included): tables.md's text (kWide) or a terminal's
  // (kCompact); "" when it failed.
  const std::string& tables_text(TableWidth width) const;

  // sweep --trace-routing: records every context's routing (call before
  // run(); nullptr, the default, records none). It must outlive run().
  void trace_routing_with(RoutingTraceFactory* traces) { traces_ = traces; }

  // Only valid once open() has created or reopened it.
  const RunDirectory& dir() const { return life_->dir(); }
  // The run's lock, held until the session is destroyed (after run() too).
  const RunLock& lock() const { return life_->lock(); }
  // What open() repaired in a resumed run (a torn last line cut off, say).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void start_meta(const counters::CounterBackend& counters);
  std::string fixed_length_cost(const std::vector<Record>& records);

  RunRequest request_;
  std::string origin_;
  std::map<std::string, nlohmann::json> settings_;
  std::optional<RunDirectory> resumed_;
  std::optional<RunLock> lock_;  // a resume's, taken before its meta.json is read
  RunMeta meta_;                 // until open(); then the lifecycle's
  std::vector<Record> earlier_;  // a resumed run's records, told to the listeners
  std::set<std::string> done_keys_;
  Plan plan_;
  RunSampleTime sample_time_;
  std::optional<std::filesystem::path> database_;
  std::unique_ptr<counters::CounterBackend> counters_;
  // --counters sim: the engine workers of this run start under valgrind.
  std::optional<ScopedWorkerLauncher> launcher_;
  std::vector<RunListener*> added_listeners_;  // listen()'s, beside the run's own
  // One of the lifecycle's listeners: destroyed after it (a lifecycle left
  // open ends its listeners when it is destroyed).
  std::unique_ptr<RunTablesWriter> tables_;
  // From open(): the directory, its lock, meta.json and the listeners.
  std::unique_ptr<RunLifecycle> life_;
  RoutingTraceFactory* traces_ = nullptr;
  std::vector<std::string> notes_;
};

// The exit code of a finished run: 0, 3 (some points failed), 130 (interrupted).
int exit_code_for(RunStatus status);

}  // namespace moesweep
