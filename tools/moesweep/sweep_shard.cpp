#include "sweep_shard.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cluster/shard_resume.hpp"
#include "sweep/this_machine.hpp"
#include "util/error.hpp"

namespace moesweep::cli {

void add_shard_option(CLI::App& cmd, std::string& shard) {
  cmd.add_option("--shard", shard,
                 "run one shard of `moesweep plan`: DIR/shard-I.json, or DIR with I from "
                 "SLURM_ARRAY_TASK_ID; continues an unfinished run of it under --out-dir");
}

void refuse_sweep_flags_with_shard(const SweepOptions& opts) {
  std::string given = opts.profile.empty() ? "" : "--profile";
  for (const auto* list : {&opts.value_options, &opts.flag_options})
    for (const CLI::Option* o : *list)
      if (o->count() > 0) given += (given.empty() ? "" : ", ") + o->get_name(false, true);
  if (!opts.resume.empty()) given += (given.empty() ? "" : ", ") + std::string("--resume");
  if (given.empty()) return;
  throw UserError(
      fmt::format("--shard runs the settings of its shard file, so {} would be ignored", given),
      "--shard with at most --out-dir, --db/--no-db, --quiet, --dry-run, --keep-pp/tg",
      "change the sweep with `moesweep plan` (new shard files), or drop those flags");
}

// A shard run (issue 13): the shard file's settings, or its unfinished run
// under --out-dir, with the plan cut down to the shard's points.
RunRequest shard_request(RunRequest req, const std::string& shard_arg, bool* already_complete) {
  const ShardStart st = shard_start(read_shard_file(resolve_shard_arg(shard_arg)), req.out_dir,
                                    machine_class_id(this_machine_class()), node_facts());
  for (const std::string& why : st.skipped)
    fmt::print(stderr, "[sweep] passed over a run that does not read: {}\n", why);
  for (const RunOnOtherHardware& other : st.left_alone)
    fmt::print(stderr,
               "[sweep] not continuing shard {}/{} in {}: it was measured on other hardware "
               "({}); starting a fresh run and leaving that one untouched\n",
               st.file.index, st.file.count, other.run.string(),
               fmt::join(other.differences, "; "));
  req.resume.clear();
  req.ignored_on_resume.clear();
  req.settings = st.file.settings;
  req.origin = fmt::format("shard {}/{} of plan {}", st.file.index, st.file.count, st.file.plan_id);
  *already_complete = st.earlier_complete;
  if (!st.earlier_run.empty() && !st.earlier_complete) {
    req.resume = st.earlier_run;
    fmt::print(stderr, "[sweep] continuing {} in {}\n", req.origin, st.earlier_run.string());
  }
  const ShardRef shard = shard_meta(st.file);
  req.shard = shard;
  req.adjust_plan = [shard](Plan& plan, const std::optional<RunMeta>& resumed_meta) {
    const bool own = resumed_meta && resumed_meta->shard;
    restrict_to_shard(plan, shard_from_meta(own ? *resumed_meta->shard : shard));
  };
  return req;
}

}  // namespace moesweep::cli
