#pragma once
// sweep --trace-routing: one routing trace per context, written into the run
// directory as routing-c<context>-<model stem>.trace.zst when the context's
// points are done (read with `moesweep l3`). The context's timed TG calls run
// with the tap off and a traced pass of the same tokens follows or precedes
// each (sweep/kv_walk.hpp); everything else the context decodes is traced.
#include <filesystem>
#include <memory>
#include <vector>

#include "analysis/routing_trace.hpp"
#include "sweep/runner.hpp"

namespace moesweep {

class RunDirRoutingTraces : public RoutingTraceFactory {
 public:
  explicit RunDirRoutingTraces(std::filesystem::path dir) : dir_(std::move(dir)) {}
  ~RunDirRoutingTraces() override;
  RoutingObserver* start(const ModelFacts& model, size_t context_index) override;
  void finish() override;
  std::string file_name() const override { return file_.filename().string(); }
  int64_t steps() const override;
  const std::vector<std::filesystem::path>& written() const { return written_; }

 private:
  std::filesystem::path dir_, file_;
  std::unique_ptr<RoutingTrace> trace_;
  std::unique_ptr<TraceRecorder> recorder_;
  std::vector<std::filesystem::path> written_;
};

}  // namespace moesweep
