#include "run/run_lifecycle.hpp"

#include <ctime>

namespace moesweep {
namespace {

// meta.json as the run goes: "running" at the start, the models as they load
// (so a run killed midway still names, and can resume against, what it
// measured), the final state at the end.
class MetaWriter : public RunListener {
 public:
  MetaWriter(const RunDirectory& dir, RunMeta& meta) : dir_(dir), meta_(meta) {}
  void begin(const RunMeta&) override { dir_.write_meta(meta_); }
  void model(const nlohmann::json& facts) override {
    RunModelFacts model = model_facts_from_json(facts, "the engine's model facts");
    for (const RunModelFacts& m : meta_.models)
      if (m.path == model.path) return;
    meta_.models.push_back(std::move(model));
    dir_.write_meta(meta_);
  }
  void end(const RunMeta&, RunStatus status) override {
    meta_.status = status;
    meta_.finished_at = run_timestamp_now();
    dir_.write_meta(meta_);
  }

 private:
  const RunDirectory& dir_;
  RunMeta& meta_;
};

}  // namespace

std::string run_timestamp_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return buf;
}

RunLifecycle::RunLifecycle(RunDirectory dir, std::optional<RunLock> lock)
    : dir_(std::move(dir)), lock_(std::move(lock)) {
  if (!lock_) lock_.emplace(dir_.path());
  listeners_.push(std::make_unique<MetaWriter>(dir_, meta_));
}

// The last way out: a caller that began the run and left without ending it
// (an exception of its own) still leaves no "running" behind.
RunLifecycle::~RunLifecycle() {
  if (open_) fail("the run stopped before it finished");
}

void RunLifecycle::name_the_run() {
  meta_.run_id = dir_.run_id();
  meta_.run_dir = dir_.path().string();
}

void RunLifecycle::begin() {
  name_the_run();
  meta_.status = RunStatus::kRunning;
  if (meta_.started_at.empty()) meta_.started_at = run_timestamp_now();
  meta_.finished_at.clear();
  open_ = true;
  guarded([&] { listeners_.begin(meta_); });
}

void RunLifecycle::save_meta() const {
  dir_.write_meta(meta_);
}

void RunLifecycle::end(RunStatus status) {
  open_ = false;
  listeners_.end(meta_, status);
}

void RunLifecycle::fail(const std::string& error) noexcept {
  open_ = false;
  name_the_run();
  meta_.error = error;
  try {
    listeners_.end(meta_, RunStatus::kFailed);
  } catch (...) {  // the same full disk, say: the error itself still stands
  }
}

void RunLifecycle::guarded(const std::function<void()>& step) {
  try {
    step();
  } catch (const std::exception& e) {
    fail(e.what());
    throw;
  }
}

}  // namespace moesweep
