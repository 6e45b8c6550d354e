#include "engine_sweep.hpp"

#include <fmt/format.h>

#include <sys/wait.h>

#include <atomic>
#include <fstream>
#include <optional>
#include <thread>

#include "commands.hpp"
#include "engine/build_step.hpp"
#include "hw/build_info.hpp"
#include "results/run_source.hpp"
#include "sweep/cotenant.hpp"
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

// `moesweep sweep` with the profile, each override as its option, and the
// sweep's out_dir and database choice.
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

// The child's UserError as its log's last "moesweep: error: " says it (read
// from the log's last 64 KiB), with the log named in the fix.
UserError child_error(const std::filesystem::path& log) {
  std::ifstream in(log, std::ios::binary);
  in.seekg(0, std::ios::end);
  in.seekg(std::max<std::streamoff>(0, static_cast<std::streamoff>(in.tellg()) - (64 << 10)));
  const std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string_view marker = "moesweep: error: ";
  const size_t at = tail.rfind(marker);
  std::string said = at == std::string::npos ? "" : tail.substr(at + marker.size(), 4000);
  auto cut = [&said](std::string_view label) {
    const size_t p = said.find(label);
    if (p == std::string::npos) return std::string();
    std::string rest = said.substr(p + label.size());
    said.resize(p);
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.pop_back();
    return rest;
  };
  const std::string fix = cut("\n  fix: "), expected = cut("\n  expected: ");
  return UserError(said.empty() ? "a sweep refused to run (no error line in its log)" : said,
                   expected.empty() ? "a sweep that runs" : expected,
                   (fix.empty() ? "" : fix + "; ") + "its log: " + log.string());
}

// One child sweep to its end, and the run directory it made in its out_dir.
EngineSweepRun run_child_sweep(const EngineSweep& sweep) {
  std::filesystem::create_directories(sweep.out_dir);
  std::vector<std::string> argv = sweep_arguments(sweep);
  argv.insert(argv.begin(), self_executable().string());
  argv.push_back("--quiet");
  const std::filesystem::path log = sweep.out_dir / "sweep.log";
  const StepEnd end = run_step_logged(argv, log);
  if (!end.stopped && WIFEXITED(end.status) && WEXITSTATUS(end.status) == exit_code::kBadInput)
    throw child_error(log);
  EngineSweepRun run;
  for (const auto& e : std::filesystem::directory_iterator(sweep.out_dir))
    if (e.is_directory()) run.dir = e.path();
  if (end.stopped) run.status = RunStatus::kInterrupted;
  if (run.dir.empty() && !end.stopped)
    throw UserError(
        "a sweep ended without a run directory (exit status " + std::to_string(end.status) + ")",
        "a run directory in " + sweep.out_dir.string(), "read its log, " + log.string());
  if (!run.dir.empty() && !end.stopped) {
    const LoadedRun loaded = load_run(run.dir.string(), {});
    if (loaded.meta) run.status = loaded.meta->status;
  }
  return run;
}

}  // namespace

void check_sweep_plan(const EngineSweep& sweep) {
  RunRequest req = request_of(sweep);
  req.settings.erase("engine");
  req.settings.erase("twin-for");
  (void)make_plan(spec_from_settings(req.settings, req.origin), req.logical_cpus, true);
}

std::vector<EngineSweepRun> run_engine_sweeps_in_children(const std::vector<EngineSweep>& sweeps,
                                                          int jobs) {
  std::vector<EngineSweepRun> runs(sweeps.size());
  std::vector<std::optional<UserError>> errors(sweeps.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> refused{false};  // a refusal is every sweep's: start no more
  const StopOnSignal stop;           // a child is stopped by run_step_logged; no new one starts
  auto worker = [&] {
    for (size_t i; !refused && !StopOnSignal::requested() && (i = next++) < sweeps.size();) {
      try {
        runs[i] = run_child_sweep(sweeps[i]);
      } catch (const UserError& e) {
        errors[i] = e;
        refused = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, jobs); ++j) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  for (size_t i = 0; i < sweeps.size(); ++i)
    if (errors[i]) throw *errors[i];
  for (size_t i = 0; i < sweeps.size(); ++i)
    if (runs[i].dir.empty()) runs[i].status = RunStatus::kInterrupted;  // never started
  return runs;
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
