#include "engine_sweep.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "hw/build_info.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_session.hpp"
#include "sweep/sweep_spec.hpp"
#include "sweep/this_machine.hpp"
#include "sweep_progress.hpp"
#include "util/stop_signal.hpp"

namespace moesweep::cli {

namespace {

RunRequest request_of(const EngineSweep& sweep) {
  RunRequest req;
  req.settings = load_sweep_profile(sweep.profile, &req.origin);
  req.settings.erase("description");
  for (const auto& [key, value] : sweep.overrides) req.settings[key] = value;
  req.profile_stem = std::filesystem::path(sweep.profile).stem().string();
  req.machine_class = this_machine_class();
  req.out_dir = sweep.out_dir;
  req.database = {sweep.db ? sweep.db->string() : std::string(), sweep.db.has_value(),
                  !sweep.db.has_value()};
  req.logical_cpus = cpu_info().logical_cpus;
  req.command_line = invocation();
  req.node = node_facts();
  return req;
}

}  // namespace

std::vector<std::string> sweep_arguments(const EngineSweep& sweep) {
  std::vector<std::string> args = {"sweep", "--profile", sweep.profile};
  for (const auto& [key, value] : sweep.overrides) {
    args.push_back("--" + key);
    args.push_back(value.is_string() ? value.get<std::string>() : value.dump());
  }
  args.insert(args.end(), {"--out-dir", sweep.out_dir.string()});
  if (sweep.db)
    args.insert(args.end(), {"--db", sweep.db->string()});
  else
    args.push_back("--no-db");
  return args;
}

void check_sweep_plan(const EngineSweep& sweep) {
  RunRequest req = request_of(sweep);
  req.settings.erase("engine");
  req.settings.erase("twin-for");
  (void)make_plan(spec_from_settings(req.settings, req.origin), req.logical_cpus, true);
}

EngineSweepRun run_engine_sweep(const EngineSweep& sweep) {
  SweepProgress progress(sweep.quiet);  // outlives the session, which ends it
  RunSession session(request_of(sweep));
  session.listen(progress);
  session.open();
  fmt::print(stderr, "[sweep] run directory {}\n", session.dir().path().string());
  const StopOnSignal stop;
  const RunOutcome outcome = session.run(stop.flag());
  return {session.dir().path(), outcome.status, outcome.ok_points, outcome.failed_points};
}

void engine_add_progress(const std::string& line) {
  fmt::print(stderr, "[engine add] {}\n", line);
}

std::string sweep_command_text(const EngineSweep& sweep) {
  std::string text = "moesweep";
  for (const std::string& a : sweep_arguments(sweep)) text += " " + a;
  return text;
}

}  // namespace moesweep::cli
