#pragma once
// The progress line on stderr (point i of N, elapsed, ETA) and notes.
#include <chrono>

#include "results/sink.hpp"

namespace moesweep::cli {

// A listener. The total is the plan's points (meta.json's plan, at begin);
// a resumed run counts on from the points it had (its 4th point is "4/6");
// the ETA counts only the points measured in this session.
class SweepProgress : public RunListener {
 public:
  explicit SweepProgress(bool quiet) : quiet_(quiet), start_(Clock::now()) {}
  void begin(const RunMeta& meta) override;
  void resumed(const std::vector<Record>& earlier) override;
  void note(const std::string& message) override;
  void point(const Record& record) override;

 private:
  using Clock = std::chrono::steady_clock;
  bool quiet_;
  int total_ = 0;
  int earlier_ = 0;  // points a resumed run had before this session
  int done_ = 0;     // points of this session
  Clock::time_point start_;
};

}  // namespace moesweep::cli
