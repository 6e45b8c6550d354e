#pragma once
// What `moesweep sweep --shard` adds to a sweep (issue 13): the shard file's
// settings, the earlier run of the same shard to continue (a re-queued array
// task), and the node's facts for meta.json.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "sweep/shard_plan.hpp"
#include "sweep_options.hpp"

namespace moesweep::cli {

void add_shard_option(CLI::App& cmd, std::string& shard);
// A shard's settings are in its file: --profile or an axis flag beside
// --shard would be ignored, so it is refused (exit 2).
void refuse_sweep_flags_with_shard(const SweepOptions& opts);

struct ShardStart {
  ShardFile file;
  std::filesystem::path earlier_run;  // empty: none under --out-dir
  bool earlier_complete = false;
  std::vector<std::string> skipped;  // broken run directories passed over, and why
};

// --shard FILE or DIR (index from SLURM_ARRAY_TASK_ID); looks under out_dir
// for a run of the same plan, shard and hardware to continue; a run of the
// shard measured on other hardware (machine class, or meta.json node's CPU
// model, hardware profile, CPU count) is named on stderr and left untouched;
// a run directory whose meta.json does not read (broken, hand-edited) is
// passed over, named in `skipped`.
ShardStart shard_start(const std::string& arg, const std::filesystem::path& out_dir);

// meta.json's "node": host, CPU model, logical CPUs, the hardware profile
// matched, and the Slurm job ids when run under Slurm.
NodeFacts node_facts();

}  // namespace moesweep::cli
