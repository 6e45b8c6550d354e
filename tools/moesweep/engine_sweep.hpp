#pragma once
// One sweep of a profile with a few settings of the caller's (the engines,
// --counters sim, --target-mde), run in this process the way `moesweep sweep`
// runs it (sweep/run_session.hpp): gate, history and bisect measure through it.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/run_meta.hpp"

namespace moesweep::cli {

struct EngineSweep {
  std::string profile;                              // a name in profiles/sweeps or a JSON path
  std::map<std::string, nlohmann::json> overrides;  // setting key -> value, over the profile's
  std::filesystem::path out_dir;                    // the run directory is made inside it
  std::optional<std::filesystem::path> db;          // nullopt: no database
  bool quiet = false;                               // no progress line
};

struct EngineSweepRun {
  std::filesystem::path dir;
  RunStatus status = RunStatus::kComplete;
  int ok_points = 0, failed_points = 0;
};

// Runs it to the end; Ctrl-C and SIGTERM stop it cleanly (status
// interrupted). UserError for settings a sweep refuses.
EngineSweepRun run_engine_sweep(const EngineSweep& sweep);

// UserError where the sweep's settings make no plan, told before any engine
// is registered or run: the plan of this moesweep's own engine (the settings
// less --engine and --twin-for, which name engines that may not exist yet).
void check_sweep_plan(const EngineSweep& sweep);

// `moesweep sweep` with the profile, each override as its option, and the
// sweep's out_dir and database choice (argv after the program).
std::vector<std::string> sweep_arguments(const EngineSweep& sweep);

// An engine build's progress line on stderr ("[engine add] ...").
void engine_add_progress(const std::string& line);

// `moesweep sweep ...` as it would be typed for the same run (for messages).
std::string sweep_command_text(const EngineSweep& sweep);

}  // namespace moesweep::cli
