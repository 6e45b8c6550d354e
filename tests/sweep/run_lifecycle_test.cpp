// RunLifecycle without the engine: the rules every run directory follows
// (sweep, serve-bench, trace, merge). meta.json never stays "running" once the
// lifecycle is gone, every listener is ended exactly once on every way out,
// and a second writer of the same directory is refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "run/run_lifecycle.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// Counts what it hears.
struct Tally : RunListener {
  int begun = 0, ended = 0, notes = 0;
  RunStatus last = RunStatus::kRunning;
  void begin(const RunMeta&) override { ++begun; }
  void note(const std::string&) override { ++notes; }
  void end(const RunMeta&, RunStatus status) override {
    ++ended;
    last = status;
  }
};

// A listener whose end fails (a full disk under it, say).
struct FailingEnd : RunListener {
  void end(const RunMeta&, RunStatus) override { throw std::runtime_error("disk full"); }
};

RunDirectory fresh_dir() {
  return RunDirectory::create(test::scratch_dir(), "lifecycle");
}

// A run of `kind` in a fresh directory, begun, with a Tally listening.
struct Begun {
  Tally tally;
  RunLifecycle run{fresh_dir()};
  explicit Begun(RunKind kind) {
    run.meta().kind = kind;
    run.listen(tally);
    run.begin();
  }
};

TEST(RunLifecycle, BeginSaysRunningAndEndSaysTheFinalStatus) {
  Begun begun(RunKind::kServe);
  RunLifecycle& run = begun.run;
  const Tally& tally = begun.tally;
  const RunMeta running = run.dir().read_meta();
  EXPECT_EQ(running.status, RunStatus::kRunning);
  EXPECT_EQ(running.run_id, run.dir().run_id());
  EXPECT_EQ(running.run_dir, run.dir().path().string());
  EXPECT_FALSE(running.started_at.empty());
  run.listeners().note("halfway");
  run.end(RunStatus::kPointsFailed);
  const RunMeta done = run.dir().read_meta();
  EXPECT_EQ(done.status, RunStatus::kPointsFailed);
  EXPECT_FALSE(done.finished_at.empty());
  EXPECT_EQ(tally.begun, 1);
  EXPECT_EQ(tally.notes, 1);
  EXPECT_EQ(tally.ended, 1);
  EXPECT_EQ(tally.last, RunStatus::kPointsFailed);
}

TEST(RunLifecycle, AnErrorInsideGuardedLeavesFailedWithTheReason) {
  Begun begun(RunKind::kRoutingTrace);
  RunLifecycle& run = begun.run;
  const Tally& tally = begun.tally;
  EXPECT_THROW(run.guarded([] { throw UserError("the server did not answer", "", ""); }),
               UserError);
  const RunMeta meta = run.dir().read_meta();
  EXPECT_EQ(meta.status, RunStatus::kFailed);
  EXPECT_NE(meta.error.find("the server did not answer"), std::string::npos) << meta.error;
  EXPECT_EQ(tally.ended, 1);
  EXPECT_EQ(tally.last, RunStatus::kFailed);
  EXPECT_FALSE(run.is_open());
}

TEST(RunLifecycle, LeftOpenItEndsFailedWhenDestroyed) {
  Tally tally;
  std::filesystem::path dir;
  {
    RunLifecycle run(fresh_dir());
    run.meta().kind = RunKind::kMerged;
    run.listen(tally);
    run.begin();
    dir = run.dir().path();
  }
  const RunMeta meta = read_run_meta(dir);
  EXPECT_EQ(meta.status, RunStatus::kFailed);
  EXPECT_FALSE(meta.error.empty());
  EXPECT_EQ(tally.ended, 1);
}

TEST(RunLifecycle, EveryListenerEndsWhenOneEndFailsAndTheErrorSurfaces) {
  Tally after;
  FailingEnd failing;
  RunLifecycle run(fresh_dir());
  run.meta().kind = RunKind::kSweep;
  run.listen(failing);
  run.listen(after);
  run.begin();
  EXPECT_THROW(run.end(RunStatus::kComplete), std::runtime_error);
  EXPECT_EQ(after.ended, 1);
  EXPECT_EQ(run.dir().read_meta().status, RunStatus::kComplete);  // meta.json ends first
}

TEST(RunLifecycle, ASecondWriterOfTheDirectoryIsRefused) {
  RunLifecycle run(fresh_dir());
  try {
    RunLifecycle second(RunDirectory::adopt(run.dir().path(), run.dir().run_id()));
    FAIL() << "a second lifecycle took the same directory";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("is running"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace moesweep
