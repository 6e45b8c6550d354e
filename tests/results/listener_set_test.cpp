// ListenerSet (results/sink.hpp), the one composite of RunListener: every event
// to every listener in the order pushed, and every listener's end even when
// an earlier one throws (a full disk under the database must not leave
// meta.json "running"), the first error rethrown.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/sink.hpp"

namespace moesweep {
namespace {

// Writes "<name>:<event>" into a shared log; throws from `end` when asked.
class Logger : public RunListener {
 public:
  Logger(std::string name, std::vector<std::string>& log, bool throw_at_end = false)
      : name_(std::move(name)), log_(log), throw_at_end_(throw_at_end) {}
  void begin(const RunMeta& meta) override { say("begin " + meta.run_id); }
  void note(const std::string& message) override { say("note " + message); }
  void model(const nlohmann::json& facts) override { say("model " + facts.value("path", "")); }
  void sample(const SampleEvent& s) override { say(std::string("sample ") + s.phase); }
  void point(const Record& r) override { say("point " + r.params.model_name); }
  void end(const RunMeta&, RunStatus status) override {
    say(std::string("end ") + run_status_name(status));
    if (throw_at_end_) throw std::runtime_error(name_ + " could not end");
  }

 private:
  void say(const std::string& what) { log_.push_back(name_ + ":" + what); }
  std::string name_;
  std::vector<std::string>& log_;
  bool throw_at_end_;
};

TEST(ListenerSet, EveryEventReachesEveryListenerInTheOrderPushed) {
  std::vector<std::string> log;
  Logger borrowed("b", log);
  ListenerSet set;
  set.push(std::make_unique<Logger>("a", log));
  set.push(&borrowed);
  RunMeta meta;
  meta.run_id = "run-1";
  Record record;
  record.params.model_name = "twin";
  SampleEvent sample;
  sample.phase = "tg";
  set.begin(meta);
  set.note("loading");
  set.model({{"path", "m.gguf"}});
  set.sample(sample);
  set.point(record);
  set.end(meta, RunStatus::kComplete);
  EXPECT_EQ(log, (std::vector<std::string>{"a:begin run-1", "b:begin run-1", "a:note loading",
                                           "b:note loading", "a:model m.gguf", "b:model m.gguf",
                                           "a:sample tg", "b:sample tg", "a:point twin",
                                           "b:point twin", "a:end complete", "b:end complete"}));
}

TEST(ListenerSet, EveryListenerEndsWhenOneThrowsAndTheFirstErrorIsRethrown) {
  std::vector<std::string> log;
  ListenerSet set;
  set.push(std::make_unique<Logger>("database", log, /*throw_at_end=*/true));
  set.push(std::make_unique<Logger>("meta", log));
  set.push(std::make_unique<Logger>("csv", log, /*throw_at_end=*/true));
  try {
    set.end(RunMeta{}, RunStatus::kFailed);
    ADD_FAILURE() << "end swallowed the listeners' errors";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "database could not end");
  }
  EXPECT_EQ(log,
            (std::vector<std::string>{"database:end failed", "meta:end failed", "csv:end failed"}));
}

TEST(ListenerSet, AnEmptySetAndTheDefaultEventsDoNothing) {
  ListenerSet empty;
  EXPECT_NO_THROW(empty.end(RunMeta{}, RunStatus::kComplete));
  RunListener quiet;  // every event has an empty default
  EXPECT_NO_THROW(quiet.note("nothing"));
  EXPECT_NO_THROW(quiet.end(RunMeta{}, RunStatus::kInterrupted));
}

}  // namespace
}  // namespace moesweep
