#pragma once
// Where a shard run starts (issue 13): a re-queued array task continues the
// unfinished run of its shard under --out-dir, when that run was measured on
// the same hardware; else it starts afresh.
#include <filesystem>
#include <string>
#include <vector>

#include "cluster/shard_plan.hpp"
#include "results/run_meta.hpp"

namespace moesweep {

// A run of the shard measured on other hardware, and how that hardware differs.
struct RunOnOtherHardware {
  std::filesystem::path run;
  std::vector<std::string> differences;  // e.g. "logical_cpus 16 -> 2"
};

struct ShardStart {
  ShardFile file;
  std::filesystem::path earlier_run;  // empty: none to continue under out_dir
  bool earlier_complete = false;
  std::vector<std::string> skipped;            // broken run directories passed over, and why
  std::vector<RunOnOtherHardware> left_alone;  // never continued, never touched
};

// Looks under out_dir for the newest run of the same plan and shard to
// continue. A run measured on other hardware (machine class, or its node's
// CPU model, hardware profile, CPU count: facts a run lacks are not
// compared) is left untouched and named in `left_alone`; a run directory
// whose meta.json does not read (broken, hand-edited) is named in `skipped`.
// Reads and prints nothing else.
ShardStart shard_start(const ShardFile& file, const std::filesystem::path& out_dir,
                       const std::string& machine_here, const NodeFacts& node_here);

}  // namespace moesweep
