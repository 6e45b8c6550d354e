// RunSession's lifecycle on the real engine: whatever way a run ends, meta.json
// and the database's run row say how (never "running" once the session is
// gone), and every point finished before an error stays on disk.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>

#include "results/sqlite_store.hpp"
#include "support/run_records.hpp"
#include "support/test_support.hpp"
#include "sweep/run_session.hpp"
#include "tiny_request.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// Two points per model on the tiny twin: a second or two each.
RunRequest two_model_request(const std::filesystem::path& dir, const std::filesystem::path& a,
                             const std::filesystem::path& b) {
  return test::tiny_request(dir, a.string() + "," + b.string(), "0,64", "lifecycle");
}

// The tiny twin under another name, without copying its 180 MB.
std::filesystem::path twin_link(const std::filesystem::path& to) {
  std::filesystem::create_hard_link(test::tiny_twin(), to);
  return to;
}

// A scratch directory with the tiny twin linked in twice, as two models.
struct TwoModels {
  std::filesystem::path dir = test::scratch_dir();
  std::filesystem::path first = twin_link(dir / "first.gguf");
  std::filesystem::path second = twin_link(dir / "second.gguf");
  RunRequest request() const { return two_model_request(dir, first, second); }
};

using test::read_meta;

std::optional<RunInfo> run_row(const std::filesystem::path& db, const std::string& run_id) {
  SqliteStore store(db, SqliteStore::Mode::kReadOnly);
  return store.find_run(run_id);
}

// Removes the second model as soon as the first one's first point is recorded:
// the plan checked it, then it is gone when its turn comes to load.
class RemoveModelAfterFirstPoint : public RunListener {
 public:
  explicit RemoveModelAfterFirstPoint(std::filesystem::path victim) : victim_(std::move(victim)) {}
  void point(const Record&) override { std::filesystem::remove(victim_); }

 private:
  std::filesystem::path victim_;
};

TEST(RunSession, AModelGoneMidPlanLeavesTheRunFailedInMetaAndDatabaseWithItsPointsKept) {
  const TwoModels models;
  const std::filesystem::path& dir = models.dir;
  std::filesystem::path run;
  std::string run_id;
  RemoveModelAfterFirstPoint remover(models.second);  // outlives the session, as listeners must
  {
    RunSession session(models.request());
    ASSERT_EQ(session.plan().points.size(), 4u);
    session.listen(remover);
    session.open();
    run = session.dir().path();
    run_id = session.dir().run_id();
    EXPECT_EQ(read_meta(run)["status"], "running");
    EXPECT_EQ(run_row(dir / "results.sqlite", run_id)->status, "running");
    std::atomic<bool> stop{false};
    try {
      session.run(stop);
      ADD_FAILURE() << "the run went on without its second model";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("second.gguf"), std::string::npos) << e.what();
    }
  }
  const nlohmann::json meta = read_meta(run);
  EXPECT_EQ(meta["status"], "failed");
  EXPECT_NE(meta.value("error", "").find("second.gguf"), std::string::npos) << meta.dump(2);
  EXPECT_TRUE(meta.contains("finished_at"));
  const std::optional<RunInfo> row = run_row(dir / "results.sqlite", run_id);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->status, "failed");
  EXPECT_EQ(row->n_points, 2) << "the first model's points are in the database";
  const std::vector<std::string> lines = test::read_lines(run / "records.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  for (const std::string& line : lines) {
    const nlohmann::json r = nlohmann::json::parse(line);
    EXPECT_EQ(r["ok"], true) << line;
    EXPECT_NE(r.value("model_path", "").find("first.gguf"), std::string::npos) << line;
  }
}

TEST(RunSession, ASessionOpenedAndAbandonedEndsFailedNotRunning) {
  const TwoModels models;
  std::filesystem::path run;
  std::string run_id;
  {
    RunSession session(models.request());
    session.open();
    run = session.dir().path();
    run_id = session.dir().run_id();
  }  // the caller left (an exception of its own, say) without run()
  EXPECT_EQ(read_meta(run)["status"], "failed");
  EXPECT_EQ(run_row(models.dir / "results.sqlite", run_id)->status, "failed");
}

TEST(RunSession, AFailedRunResumesAndCompletes) {
  const TwoModels models;
  std::filesystem::path run;
  RemoveModelAfterFirstPoint remover(models.second);
  {
    RunSession session(models.request());
    session.listen(remover);
    session.open();
    run = session.dir().path();
    std::atomic<bool> stop{false};
    EXPECT_THROW(session.run(stop), UserError);
  }
  twin_link(models.second);  // the fix: the model is back
  RunRequest again;
  again.resume = run;
  again.database = {(models.dir / "results.sqlite").string(), false, false};
  again.logical_cpus = 1;
  RunSession resumed(again);
  resumed.open();
  std::atomic<bool> stop{false};
  const RunOutcome outcome = resumed.run(stop);
  EXPECT_EQ(outcome.status, RunStatus::kComplete);
  EXPECT_EQ(outcome.skipped_points, 2);
  EXPECT_EQ(outcome.ok_points, 2);
  const nlohmann::json meta = read_meta(run);
  EXPECT_EQ(meta["status"], "complete");
  EXPECT_FALSE(meta.contains("error")) << "the earlier failure is behind the run";
  EXPECT_EQ(exit_code_for(outcome.status), exit_code::kOk);
}

TEST(RunSession, ExitCodesFollowTheStatus) {
  EXPECT_EQ(exit_code_for(RunStatus::kComplete), exit_code::kOk);
  EXPECT_EQ(exit_code_for(RunStatus::kPointsFailed), exit_code::kPointsFailed);
  EXPECT_EQ(exit_code_for(RunStatus::kInterrupted), exit_code::kInterrupted);
}

}  // namespace
}  // namespace moesweep
