#pragma once
// What the runner tells the outside world while it works (progress lines,
// the samples file); the runner itself never prints.
#include <string>

#include "results/record.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_note(const std::string& /*message*/) {}
  // A model was loaded: its facts (path, size, sha256, shape) for meta.json.
  virtual void on_model_loaded(const nlohmann::json& /*facts*/) {}
  virtual void on_sample(const PlannedPoint& /*point*/, const char* /*phase*/, int /*rep*/,
                         double /*seconds*/, int /*tokens*/) {}
  virtual void on_record(const Record& /*record*/, int /*done*/, int /*total*/) {}
};

}  // namespace moesweep
