#pragma once
// The points of an external tool's engine (engine add --exec,
// engine/exec_tool.hpp): one run of the tool covers one context of the plan
// at one thread setting, every depth of it, and its rows become the records
// of those points, marked as ingested. What the tool cannot do for a point
// (a PP that is not one ubatch on llama-sweep-bench, a CPU mask, -ot) fails
// that point with the reason instead of measuring something else.
#include <atomic>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

struct ExecBlock {
  const EngineChoice& engine;
  const ContextGroup& group;
  const SweepSpec& spec;
  std::string model_path;
  size_t thread_index = 0;                  // into group.threads
  std::vector<const PlannedPoint*> points;  // this engine's, at that thread setting
};

// A record per point (ok or failed with the reason); empty when stopped by
// the user (the points stay unmeasured, for --resume).
std::vector<Record> run_exec_block(const ExecBlock& block, const std::atomic<bool>& stop);

}  // namespace moesweep
