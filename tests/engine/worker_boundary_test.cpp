// Issue 35, the worker boundary: every call to a worker has a deadline (the
// model load and the context creation too), writes to it cannot block, the
// stop flag (Ctrl-C) ends a waiting call within a second, whatever the worker
// started is ended with it (a setsid() grandchild too), and its answers are
// checked (the file it says it loaded, its times, its refusals named). The
// workers here are test doubles (shell scripts speaking the protocol's lines):
// the real worker cannot be made to hang, lie or stop reading on purpose.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "engine/engine.hpp"
#include "engine/engine_worker.hpp"
#include "engine/worker_process.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

const char* const kHello =
    R"({"ok":true,"protocol":2,"engine":{"protocol":2,"kind":"llama.cpp","release":"v0.4.0",)"
    R"("commit":"80fb11ac73e66d89eae2c6a91d8a77428fa733ed","build":"test double",)"
    R"("cpu_variant":"haswell","library":"","cpu_features":["AVX2"],"system_info":""}})";
const char* const kLoad =
    R"({"ok":true,"engine_log":"","facts":{"arch":"deepseek2","description":"deepseek2 d",)"
    R"("file_type":"","n_ctx_train":262144,"n_layer":2,"n_params":525081360,"n_vocab":102400,)"
    R"("path":"x.gguf","size_bytes":324099136}})";
const char* const kContext = R"({"ok":true,"ctx":1,"n_ctx":512,"engine_log":""})";

struct FakeWorker {
  std::filesystem::path dir = test::scratch_dir();
  std::filesystem::path path = dir / "fake-worker";
  std::filesystem::path pid_file = dir / "hung.pid";  // written when it stops answering

  // A test double: answers hello, then runs `body` (sh) with $PID_FILE set.
  explicit FakeWorker(const std::string& body) {
    std::ofstream(path) << "#!/bin/sh\nPID_FILE='" << pid_file.string() << "'\nread l; echo '"
                        << kHello << "'\n"
                        << body << "\n";
    ::chmod(path.c_str(), 0755);
  }
  // The pid the fake wrote once it hung (0 when it never did).
  pid_t hung_pid() const {
    pid_t pid = 0;
    std::ifstream(pid_file) >> pid;
    return pid;
  }
};

// "read the load and answer it; read the context and answer it".
std::string answers_load_and_context() {
  return std::string("read l; echo '") + kLoad + "'\nread l; echo '" + kContext + "'\n";
}

// Hangs: writes its pid (the sleep's, by exec) and never answers.
const char* const kHang = "echo $$ > \"$PID_FILE\"; exec sleep 600\n";

ModelLoadParams load_of(const std::string& path) {
  ModelLoadParams p;
  p.path = path;
  return p;
}

TEST(WorkerBoundary, ALoadThatNeverAnswersEndsAtThePointTimeout) {  // D1
  const FakeWorker fake(std::string("read l; ") + kHang);
  try {
    LoadedModel model(load_of("x.gguf"), fake.path, WorkerLimits{1, nullptr});
    FAIL() << "the load returned";
  } catch (const EngineCrash& e) {
    EXPECT_NE(std::string(e.what()).find("during load"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no answer within 1 s (--point-timeout)"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.how(), "hung");
  }
  ASSERT_GT(fake.hung_pid(), 0);
  EXPECT_TRUE(test::gone_within(fake.hung_pid(), std::chrono::seconds(5)));
}

TEST(WorkerBoundary, AContextThatNeverComesEndsAtThePointTimeout) {  // D1
  const FakeWorker fake(std::string("read l; echo '") + kLoad + "'\nread l; " + kHang);
  LoadedModel model(load_of("x.gguf"), fake.path, WorkerLimits{1, nullptr});
  try {
    LiveContext ctx(model, ContextParams{});
    FAIL() << "the context was made";
  } catch (const EngineCrash& e) {
    EXPECT_NE(std::string(e.what()).find("during context"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::gone_within(fake.hung_pid(), std::chrono::seconds(5)));
}

TEST(WorkerBoundary, TheStopFlagEndsAHungCallWithinASecond) {  // D2
  const FakeWorker fake(answers_load_and_context() + "read l; " + kHang);
  std::atomic<bool> stop{false};
  LoadedModel model(load_of("x.gguf"), fake.path, WorkerLimits{600, &stop});
  LiveContext ctx(model, ContextParams{});
  std::thread ctrl_c([&] {  // Ctrl-C once the fake is hanging in the decode
    const auto end = Clock::now() + std::chrono::seconds(60);
    while (fake.hung_pid() == 0 && Clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stop = true;
  });
  const auto t0 = Clock::now();
  EXPECT_THROW(ctx.generate({1, 2}, 0), WorkerInterrupted);
  ctrl_c.join();
  // Not a timing test: a call that waited for its 600 s deadline would fail here.
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(120));
  ASSERT_GT(fake.hung_pid(), 0);
  EXPECT_TRUE(test::gone_within(fake.hung_pid(), std::chrono::seconds(5)));
  try {
    throw WorkerInterrupted("decode");
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), 130);  // the documented exit of an interrupted run
  }
}

TEST(WorkerBoundary, AWorkerThatStopsReadingCannotBlockARequest) {  // D3
  // After the context it never reads again: a request larger than the pipe
  // buffer (a fill of 200,000 tokens, ~1.4 MB of JSON) cannot be written whole.
  const FakeWorker fake(answers_load_and_context() + kHang);
  LoadedModel model(load_of("x.gguf"), fake.path, WorkerLimits{1, nullptr});
  LiveContext ctx(model, ContextParams{});
  try {
    ctx.prefill(std::vector<int32_t>(200000, 100000), 0);
    FAIL() << "the request was written";
  } catch (const EngineCrash& e) {
    EXPECT_NE(std::string(e.what()).find("stopped reading its requests"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("(--point-timeout)"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::gone_within(fake.hung_pid(), std::chrono::seconds(5)));
}

TEST(WorkerBoundary, ASetsidGrandchildOfTheWorkerEndsWithIt) {  // D13
  const std::filesystem::path grandchild = test::scratch_dir() / "grandchild.pid";
  const FakeWorker fake("setsid sh -c 'echo $$ > \"" + grandchild.string() +
                        "\"; exec sleep 600' &\nread l; " + kHang);
  {
    EngineWorker w(fake.path);
    EXPECT_THROW(w.call({{"op", "cached"}, {"ctx", 1}}, {1, "a test deadline"}), EngineCrash);
  }
  pid_t pid = 0;
  std::ifstream(grandchild) >> pid;
  ASSERT_GT(pid, 0) << "the fake's grandchild did not start";
  EXPECT_TRUE(test::gone_within(pid, std::chrono::seconds(5)))
      << "the setsid() grandchild survived";
}

TEST(WorkerBoundary, ADeadlineIsCalledByItsOwnName) {  // D18
  const FakeWorker fake(kHang);
  WorkerProcess p(fake.path);
  (void)p.request({{"op", "hello"}}, {60, "the deadline of a worker's hello"});  // the fake's hello
  try {
    p.request({{"op", "cached"}}, {0.5, "the deadline of a worker's hello"});
    FAIL() << "answered";
  } catch (const EngineCrash& e) {
    EXPECT_NE(std::string(e.what()).find("(the deadline of a worker's hello)"), std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find("--point-timeout"), std::string::npos) << e.what();
  }
}

TEST(WorkerBoundary, AWorkersRefusalNamesTheRequestAndTheWorker) {  // D17
  const FakeWorker fake(R"(read l; echo '{"ok":false,"kind":"input","error":"bad input"}')");
  EngineWorker w(fake.path);
  try {
    w.call({{"op", "decode"}}, {10, "a test deadline"});
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("refused its decode request: bad input"), std::string::npos)
        << e.problem();
    EXPECT_NE(e.problem().find(fake.path.string()), std::string::npos) << e.problem();
    EXPECT_FALSE(e.expected().empty());
    EXPECT_FALSE(e.fix().empty());
  }
}

TEST(WorkerBoundary, AWorkerThatSaysItLoadedAnotherFileFailsTheLoad) {  // D9
  std::string lie = kLoad;
  lie.replace(lie.find("x.gguf"), 6, "/etc/hostname");
  const FakeWorker fake("read l; echo '" + lie + "'\nwhile read l; do echo '{\"ok\":true}'; done");
  try {
    LoadedModel model(load_of("x.gguf"), fake.path);
    FAIL() << "accepted";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("says it loaded '/etc/hostname'"), std::string::npos)
        << e.what();
  }
}

// A decode answered with `seconds`: the engine error it gives ("" = none).
std::string decode_answered_with(const std::string& seconds) {
  const FakeWorker fake(answers_load_and_context() + "read l; echo '{\"ok\":true,\"seconds\":" +
                        seconds + "}'\nwhile read l; do echo '{\"ok\":true}'; done");
  LoadedModel model(load_of("x.gguf"), fake.path);
  LiveContext ctx(model, ContextParams{});
  try {
    ctx.generate({1}, 0);
    return "";
  } catch (const EngineError& e) {
    return e.what();
  }
}

TEST(WorkerBoundary, AnImpossibleDecodeTimeIsTheEnginesFailure) {  // D5, D6
  for (const char* floor : {"5e-324", "1e-300", "1e-9"})
    EXPECT_NE(decode_answered_with(floor).find("below the"), std::string::npos) << floor;
  // Longer than the whole call took by our clock (milliseconds).
  EXPECT_NE(decode_answered_with("1000").find("by moesweep's clock"), std::string::npos);
  EXPECT_EQ(decode_answered_with("0.0000021"), "");  // 2.1 us for one token: possible
}

}  // namespace
}  // namespace moesweep
