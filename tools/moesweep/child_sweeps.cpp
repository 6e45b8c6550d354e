#include "child_sweeps.hpp"

#include <sys/wait.h>

#include <atomic>
#include <fstream>
#include <optional>
#include <thread>

#include "engine/build_step.hpp"
#include "sweep/cotenant.hpp"
#include "util/error.hpp"
#include "util/stop_signal.hpp"

namespace moesweep::cli {

namespace {

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
  if (run.dir.empty() && !end.stopped)
    throw UserError(
        "a sweep ended without a run directory (exit status " + std::to_string(end.status) + ")",
        "a run directory in " + sweep.out_dir.string(), "read its log, " + log.string());
  // Its status as its exit code says it (docs/sweep.md's exit codes).
  const int code = WIFEXITED(end.status) ? WEXITSTATUS(end.status) : -1;
  run.status = end.stopped || code == exit_code::kInterrupted ? RunStatus::kInterrupted
               : code == exit_code::kOk                       ? RunStatus::kComplete
               : code == exit_code::kPointsFailed             ? RunStatus::kPointsFailed
                                                              : RunStatus::kFailed;
  return run;
}

}  // namespace

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

}  // namespace moesweep::cli
