#include "results/sink.hpp"

namespace moesweep {

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kComplete:
      return "complete";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kPointsFailed:
      return "points_failed";
  }
  return "unknown";
}

void SinkSet::begin(const RunMeta& meta) {
  for (auto& s : sinks_) s->begin(meta);
}
void SinkSet::add(const Record& record) {
  for (auto& s : sinks_) s->add(record);
}
void SinkSet::end(const RunMeta& meta, RunStatus status) {
  for (auto& s : sinks_) s->end(meta, status);
}

}  // namespace moesweep
