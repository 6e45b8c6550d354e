#pragma once
// What `moesweep sweep --shard` adds to a sweep's parsing (issue 13): the
// flag, the flags it refuses beside it, and the request it makes; where a
// shard run starts is decided in src/cluster/shard_resume.hpp.
#include <CLI/CLI.hpp>
#include <string>

#include "sweep/run_session.hpp"
#include "sweep_options.hpp"

namespace moesweep::cli {

void add_shard_option(CLI::App& cmd, std::string& shard);
// A shard's settings are in its file: --profile or an axis flag beside
// --shard would be ignored, so it is refused (exit 2).
void refuse_sweep_flags_with_shard(const SweepOptions& opts);

// A shard run (issue 13): `req` (the sweep's request from its other flags)
// with the shard file's settings, or continuing the shard's unfinished run
// under req.out_dir (src/cluster/shard_resume.hpp), and the plan cut down to
// the shard's points. Says on stderr which run it continues or passes over.
// *already_complete: the shard's run there is complete (nothing to run).
RunRequest shard_request(RunRequest req, const std::string& shard_arg, bool* already_complete);

}  // namespace moesweep::cli
