#pragma once
// The engines of a run (sweep --engine a,b, issue 19): each record names the
// engine build that measured it (params.engine, extra.engine). Two engines of
// one run become two runs to compare, joined on every other key field.
#include <string>
#include <utility>
#include <vector>

#include "results/run_source.hpp"

namespace moesweep {

// The engine names in the run's records, in order of first appearance (a run
// without --engine has none).
std::vector<std::string> engines_in(const LoadedRun& run);

// The run's points measured by engine `name`, with the engine left out of
// their keys, as a run labelled "<label>:<name>". UserError (exit 2) naming
// the engines there are when it has none.
LoadedRun engine_side(const LoadedRun& run, const std::string& name);
// `list` = "BASE,NEW" (compare --engines): the two sides; UserError unless it
// names two different engines of the run.
std::pair<LoadedRun, LoadedRun> engine_pair(const LoadedRun& run, const std::string& list);

// What measured the run, for compare's header: "v0.4.0 80fb11ac73 (haswell)",
// one entry per distinct engine build, or "" when the records do not say.
std::string engine_summary(const LoadedRun& run);

}  // namespace moesweep
