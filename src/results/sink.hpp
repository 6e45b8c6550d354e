#pragma once
// Where records go. Shaped like google/benchmark's Reporter: the runner calls
// begin once, add for every finished point (the sink must make it durable
// before returning: flush, fsync or commit), end once, even after Ctrl-C.
#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "results/record.hpp"

namespace moesweep {

struct RunMeta {
  std::string run_id;
  std::string name;     // profile or --name
  std::string run_dir;  // results/runs/<time>-<name>
  nlohmann::json meta;  // the whole meta.json content
};

enum class RunStatus { kComplete, kInterrupted, kPointsFailed };
const char* run_status_name(RunStatus s);

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void begin(const RunMeta& meta) = 0;
  virtual void add(const Record& record) = 0;
  virtual void end(const RunMeta& meta, RunStatus status) = 0;
};

// Fans one stream of records out to several sinks.
class SinkSet : public RecordSink {
 public:
  void push(std::unique_ptr<RecordSink> sink) { sinks_.push_back(std::move(sink)); }
  void begin(const RunMeta& meta) override;
  void add(const Record& record) override;
  void end(const RunMeta& meta, RunStatus status) override;

 private:
  std::vector<std::unique_ptr<RecordSink>> sinks_;
};

}  // namespace moesweep
