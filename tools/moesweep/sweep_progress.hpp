#pragma once
// The progress line on stderr (point i of N, elapsed, ETA) and notes.
#include <chrono>
#include <vector>

#include "sweep/run_observer.hpp"

namespace moesweep::cli {

class SweepProgress : public RunObserver {
 public:
  explicit SweepProgress(bool quiet) : quiet_(quiet), start_(Clock::now()) {}
  void on_note(const std::string& message) override;
  void on_record(const Record& record, int done, int total) override;

 private:
  using Clock = std::chrono::steady_clock;
  bool quiet_;
  Clock::time_point start_;
};

// Forwards every event to several observers (progress + samples file).
class ObserverSet : public RunObserver {
 public:
  void push(RunObserver* o) { observers_.push_back(o); }
  void on_note(const std::string& m) override;
  void on_sample(const PlannedPoint& p, const char* phase, int rep, double s, int tokens) override;
  void on_record(const Record& r, int done, int total) override;
  void on_model_loaded(const nlohmann::json& facts) override;

 private:
  std::vector<RunObserver*> observers_;
};

}  // namespace moesweep::cli
