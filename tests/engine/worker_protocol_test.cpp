// The worker boundary itself: the real worker's hello names its engine build
// (release, commit, the CPU backend variant it loaded); programs that are not
// a worker of this protocol version are refused with a clear message, and a
// worker that dies or garbles its answer is reported as a crash saying how.
// The fake workers here are test doubles (shell scripts): the real worker
// cannot be made to speak another protocol version.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "engine/engine.hpp"
#include "engine/engine_worker.hpp"
#include "engine/worker_protocol.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// A named test double: a script standing in for a worker binary.
std::filesystem::path fake_worker(const std::string& name, const std::string& body) {
  const std::filesystem::path path = test::scratch_dir() / name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(WorkerHello, TheRealWorkerNamesItsEngineBuild) {
  const EngineFacts& f = engine_facts();
  EXPECT_EQ(f.protocol, worker_protocol::kVersion);
  EXPECT_EQ(f.kind, "llama.cpp");
  EXPECT_EQ(f.release.rfind("v", 0), 0u) << f.release;  // a release tag such as v0.4.0
  EXPECT_EQ(f.commit.size(), 40u) << f.commit;
  EXPECT_FALSE(f.cpu_variant.empty());  // which one depends on this CPU: not asserted
  EXPECT_FALSE(f.build.empty());
  EXPECT_EQ(f.worker, default_worker_path().string());
}

TEST(WorkerHello, AnotherProtocolVersionIsRefusedNamingBoth) {
  const auto worker = fake_worker(
      "old-worker", "read line; echo '{\"ok\":true,\"protocol\":99,\"engine\":{}}'; read line");
  try {
    EngineWorker w(worker);
    FAIL() << "a protocol-99 worker was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("protocol 99"), std::string::npos) << e.problem();
    EXPECT_NE(e.problem().find(worker.string()), std::string::npos) << e.problem();
    EXPECT_FALSE(e.fix().empty());
  }
}

TEST(WorkerHello, AProgramThatIsNoWorkerIsRefused) {
  for (const std::string& body : {std::string("exit 0"), std::string("echo 'not json'; cat")}) {
    SCOPED_TRACE(body);
    try {
      EngineWorker w(fake_worker("not-a-worker", body));
      FAIL() << "accepted";
    } catch (const UserError& e) {
      EXPECT_NE(e.problem().find("did not answer as an engine worker"), std::string::npos)
          << e.problem();
    }
  }
}

TEST(WorkerHello, AMissingWorkerIsAClearErrorThroughTheCli) {
  const test::CommandResult r =
      test::run_shell("MOESWEEP_WORKER=/nonexistent/moesweep-worker " + std::string(MOESWEEP_CLI) +
                      " sweep --profile default --depths 0 -r 1 --no-db --quiet --out-dir '" +
                      (test::scratch_dir() / "runs").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/moesweep-worker"), std::string::npos) << r.err;
}

TEST(WorkerProcess, ADeadWorkerIsACrashSayingHowItEnded) {
  // Answers hello like a worker, then dies on the next request with exit 3.
  const auto worker = fake_worker(
      "dying-worker",
      "read line; echo '{\"ok\":true,\"protocol\":" + std::to_string(worker_protocol::kVersion) +
          ",\"engine\":{\"protocol\":1,\"kind\":\"fake\",\"release\":\"v0\",\"commit\":\"0\","
          "\"build\":\"test double\",\"cpu_variant\":\"none\",\"library\":\"\","
          "\"cpu_features\":[],\"system_info\":\"\"}}'; read line; echo 'last words' >&2; exit 3");
  EngineWorker w(worker);
  try {
    w.call({{"op", "cached"}, {"ctx", 1}}, {60, "a test deadline"});
    FAIL() << "no crash reported";
  } catch (const EngineCrash& e) {
    EXPECT_EQ(e.how(), "exit 3");
    ASSERT_FALSE(e.log_tail().empty());
    EXPECT_EQ(e.log_tail().back(), "last words");
  }
}

}  // namespace
}  // namespace moesweep
