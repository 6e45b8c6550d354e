#include "experiments/run_dir_traces.hpp"

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "model/gguf_inspect.hpp"

namespace moesweep {

RunDirRoutingTraces::~RunDirRoutingTraces() {
  try {
    finish();  // a context that ended in an engine error still leaves its trace
  } catch (const std::exception&) {
    // a destructor must not throw; the trace of a failed context is a bonus
  }
}

RoutingObserver* RunDirRoutingTraces::start(const ModelFacts& model, size_t context_index) {
  finish();
  trace_ = std::make_unique<RoutingTrace>();
  try {
    trace_->model = trace_model_from(inspect_gguf(model.path));
  } catch (const std::exception&) {
    trace_.reset();  // headers the inspector cannot read: this context runs untraced
    return nullptr;
  }
  trace_->model.extra["source"] = "moesweep sweep --trace-routing";
  recorder_ = std::make_unique<TraceRecorder>(trace_.get());
  file_ = dir_ / fmt::format("routing-c{}-{}.trace.zst", context_index,
                             std::filesystem::path(model.path).stem().string());
  return recorder_.get();
}

int64_t RunDirRoutingTraces::steps() const {
  return trace_ ? static_cast<int64_t>(trace_->steps.size()) : -1;
}

void RunDirRoutingTraces::finish() {
  if (!trace_) return;
  if (!trace_->steps.empty()) {
    write_routing_trace(*trace_, file_);
    written_.push_back(file_);
  }
  if (recorder_) recorder_->trace = nullptr;  // the context may outlive this call
  trace_.reset();
}

}  // namespace moesweep
