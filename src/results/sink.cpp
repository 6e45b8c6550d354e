#include "results/sink.hpp"

#include <exception>

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
  // Every sink gets its end even when one fails (a full disk under the
  // database must not leave the JSONL's run unfinished); the first error wins.
  std::exception_ptr first;
  for (auto& s : sinks_) {
    try {
      s->end(meta, status);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace moesweep
