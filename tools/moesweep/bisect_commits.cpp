#include "bisect_commits.hpp"

#include <fmt/format.h>

#include <sys/wait.h>
#include <chrono>

#include <cstdlib>

#include "bisect_measure.hpp"
#include "compare_options.hpp"
#include "engine/build_step.hpp"
#include "engine/engine_registry.hpp"
#include "engine/engine_spec.hpp"
#include "engine_sweep.hpp"
#include "util/error.hpp"
#include "util/run_command.hpp"
#include "util/stop_signal.hpp"
#include "util/utc_time.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

namespace {

// A worktree of the checkout for git bisect, removed on every way out.
class BisectWorktree {
 public:
  BisectWorktree(const fs::path& checkout, const fs::path& dir, const std::string& commit)
      : checkout_(checkout), dir_(dir) {
    git_in(checkout_, {"worktree", "add", "--detach", dir_.string(), commit});
  }
  ~BisectWorktree() {
    run_command({"git", "-C", dir_.string(), "bisect", "reset"});
    run_command({"git", "-C", checkout_.string(), "worktree", "remove", "--force", dir_.string()});
    run_command({"git", "-C", checkout_.string(), "worktree", "prune"});
  }
  BisectWorktree(const BisectWorktree&) = delete;
  BisectWorktree& operator=(const BisectWorktree&) = delete;
  const fs::path& dir() const { return dir_; }

 private:
  fs::path checkout_, dir_;
};

// HEAD of `src` built as engine bisect-<commit> and measured. The build is
// ggml's portable AVX2 one: valgrind runs no AVX-512, and a native build on
// an AVX-512 machine dies of SIGILL under it (ggml_cpu_init, seen).
CountedBuild measure_head(const fs::path& src, const BisectMetric& m, const std::string& profile,
                          const fs::path& runs, const std::string& twin_for) {
  const std::string commit = git_in(src, {"rev-parse", "--short=10", "HEAD"});
  EngineSpec spec = resolve_engine_spec(src.string(), "--checkout");
  spec.name = "bisect-" + commit;
  spec.build->build_flags.push_back("-DMOESWEEP_ENGINE_PORTABLE=ON");
  ensure_registered(engine_registry_dir(), spec, engine_add_progress);
  return measure_counts(spec.name, profile, m, runs, twin_for);
}

}  // namespace

int bisect_commits(const BisectArgs& a, const BisectMetric& m, double threshold) {
  const fs::path checkout = fs::absolute(a.checkout).lexically_normal();
  const std::string good = git_in(checkout, {"rev-parse", "--verify", a.good + "^{commit}"});
  const std::string bad = git_in(checkout, {"rev-parse", "--verify", a.bad + "^{commit}"});
  if (run_command({"git", "-C", checkout.string(), "merge-base", "--is-ancestor", good, bad})
          .exit_code != 0)
    throw UserError(fmt::format("--good {} is not an ancestor of --bad {}", a.good, a.bad),
                    "the good commit older than the bad one, on its history",
                    "swap them, or pick commits of one branch");
  const fs::path work = fs::absolute(a.out_dir) / ("bisect-" + utc_now_compact());
  fs::create_directories(work);
  // Its engines in a registry of its own; each commit's build shares the
  // compiler cache with the last (paths below `work` are hashed relative).
  setenv("MOESWEEP_ENGINES", (work / "engines").c_str(), 1);
  setenv("CCACHE_BASEDIR", work.c_str(), 1);
  const BisectWorktree tree(checkout, work / "src", good);
  const auto started = std::chrono::steady_clock::now();
  const CellValues good_values = measure_head(tree.dir(), m, a.profile, work / "runs", "").cells;
  // Every commit measures the twin the good one read, so that a loader change
  // inside the span cannot pass for a change of the work per token.
  const std::string twin_for = "bisect-" + git_in(tree.dir(), {"rev-parse", "--short=10", "HEAD"});
  git_in(tree.dir(), {"checkout", "--quiet", "--detach", bad});
  const double whole = worst_growth(
      good_values, measure_head(tree.dir(), m, a.profile, work / "runs", twin_for).cells);
  if (whole <= threshold) {
    bisect_say(fmt::format("{} grew {} from {} to {}: within {}; nothing to bisect", m.text,
                           growth_text(whole), a.good, a.bad, growth_text(threshold)));
    return exit_code::kInconclusive;
  }
  write_cell_values(work / "reference.json", good_values);
  git_in(tree.dir(), {"bisect", "start", bad, good});
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  bisect_say(fmt::format("git bisect run in {} (log {})", tree.dir().string(),
                         (work / "bisect.log").string()));
  const StopOnSignal stop;
  const StepEnd end = run_step_logged(
      {"git", "-C", tree.dir().string(), "bisect", "run", self, "__bisect-judge", "--reference",
       (work / "reference.json").string(), "--metric", m.text, "--threshold", a.threshold,
       "--profile", a.profile, "--out-dir", (work / "runs").string(), "--twin-for", twin_for},
      work / "bisect.log");
  if (end.stopped) return exit_code::kInterrupted;
  if (!WIFEXITED(end.status) || WEXITSTATUS(end.status) != 0)
    throw UserError(
        fmt::format("git bisect run did not finish (see {})", (work / "bisect.log").string()),
        "every commit between --good and --bad judged good, bad or skipped",
        "read the log's last judge; fix what it says and run bisect again");
  const std::string first = git_in(tree.dir(), {"rev-parse", "refs/bisect/bad"});
  fmt::print(
      "first bad commit: {} ({}s)\n", git_in(tree.dir(), {"log", "-1", "--format=%h %s", first}),
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started)
          .count());
  fmt::print("{}\n", run_command({"git", "-C", tree.dir().string(), "bisect", "log"}).out);
  fmt::print(
      "each commit's run, callgrind's dumps in its callgrind/ (callgrind_annotate "
      "--threshold=100 FILE): {}\n",
      (work / "runs").string());
  return exit_code::kOk;
}

int run_bisect_judge(const JudgeArgs& a) {
  try {
    const BisectMetric m = parse_bisect_metric(a.metric);
    const double threshold = parse_percent(a.threshold, "--threshold");
    const CellValues good = read_cell_values(a.reference);
    const fs::path src = fs::current_path();
    const double g =
        worst_growth(good, measure_head(src, m, a.profile, a.out_dir, a.twin_for).cells);
    bisect_say(fmt::format("{}: {} {} against the good commit: {}",
                           git_in(src, {"rev-parse", "--short=10", "HEAD"}), m.text, growth_text(g),
                           g > threshold ? "bad" : "good"));
    return g > threshold ? 1 : 0;
  } catch (const UserError& e) {
    if (e.exit_code() == exit_code::kInterrupted) return 255;  // git bisect run stops
    fmt::print(stderr, "[bisect] skipped (git bisect skip): {}\n", e.problem());
    return 125;
  }
}

}  // namespace moesweep::cli
