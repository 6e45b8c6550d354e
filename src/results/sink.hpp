#pragma once
// The one listener interface of a run, shaped like google/benchmark's
// Reporter: everything a run tells the outside world goes through it, and
// every writer of the run directory and the database is one (records.jsonl,
// records.csv, SQLite, samples.jsonl, meta.json, the progress line).
//   begin  once, before the first point;
//   resumed  a resumed run's earlier points (records.jsonl as the run left
//          it, a torn last line left out), once, right after begin: a
//          listener that needs every point of the run (the tables, the
//          database's backfill) gets them here, never from another's file;
//   note   a line for the user (loading a model, building a twin);
//   model  a model was loaded: its facts (path, size, sha256, shape);
//   sample every timed repetition as it is measured;
//   token_call  every generation call of a TG sample, its tokens timed one
//          by one (and --trace-routing's traced pass of the same tokens);
//   point  every finished point, ok or failed: durable before it returns
//          (flush, fsync or commit), so a killed run loses no finished point;
//   request  serve-bench: every finished request (its requests.jsonl line),
//          durable before it returns, as a point is;
//   end    once, on every way out (complete, Ctrl-C, an error).
// Every event has an empty default: a listener overrides what it needs.
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "results/run_meta.hpp"

namespace moesweep {

// begin/end receive the run's meta.json (RunMeta, results/run_meta.hpp: its
// run_id, name, run_dir and every fact) and its final RunStatus.

// One timed repetition of one point.
struct SampleEvent {
  int point = 0;                        // the point's index in the plan
  const PointParams* params = nullptr;  // the point's parameters
  const char* phase = "";               // "pp" or "tg"
  int rep = 0;
  double seconds = 0;
  int tokens = 0;
};

// One generation call of a TG sample, each token timed (issue 46): a timed
// call of the sample, or --trace-routing's traced pass of the same tokens.
// The pointed-to values live for the call to the listener.
struct TokenCallEvent {
  int point = 0;                        // the point's index in the plan
  const PointParams* params = nullptr;  // the point's parameters
  const char* kind = "timed";           // "timed" or "routing" (the traced pass)
  int rep = 0, call = 0;                // the sample (repetition) and its call
  int pos0 = 0;                         // the first token's position (the depth)
  const std::vector<int32_t>* tokens = nullptr;
  const std::vector<int64_t>* ns = nullptr;  // each token's time; empty: not timed (--token-times)
  std::string inputs;                        // the worker's hash of the (token, position) pairs
  // --trace-routing: the routing trace of the context (a file of the run) and
  // its step count when this call began (a timed call is not in it: it goes
  // in there; a traced pass's steps start there); empty / -1 without.
  std::string trace_file;
  int64_t trace_step = -1;
  nlohmann::json sim;  // --sim-per-token: each token's simulated counts, or null
};

class RunListener {
 public:
  virtual ~RunListener() = default;
  virtual void begin(const RunMeta& /*meta*/) {}
  virtual void resumed(const std::vector<Record>& /*earlier*/) {}
  virtual void note(const std::string& /*message*/) {}
  virtual void model(const nlohmann::json& /*facts*/) {}
  virtual void sample(const SampleEvent& /*sample*/) {}
  virtual void token_call(const TokenCallEvent& /*call*/) {}
  virtual void point(const Record& /*record*/) {}
  virtual void request(const nlohmann::json& /*record*/) {}
  virtual void end(const RunMeta& /*meta*/, RunStatus /*status*/) {}
};

// The one composite: every event to every listener, in the order pushed.
class ListenerSet : public RunListener {
 public:
  void push(std::unique_ptr<RunListener> listener);  // owned
  void push(RunListener* listener);                  // not owned; must outlive the set's use
  void begin(const RunMeta& meta) override;
  void resumed(const std::vector<Record>& earlier) override;
  void note(const std::string& message) override;
  void model(const nlohmann::json& facts) override;
  void sample(const SampleEvent& sample) override;
  void token_call(const TokenCallEvent& call) override;
  void point(const Record& record) override;
  void request(const nlohmann::json& record) override;
  // Every listener gets its end even when one throws (a full disk under the
  // database must not leave meta.json "running"); the first error is rethrown.
  void end(const RunMeta& meta, RunStatus status) override;

 private:
  std::vector<std::unique_ptr<RunListener>> owned_;
  std::vector<RunListener*> listeners_;
};

}  // namespace moesweep
