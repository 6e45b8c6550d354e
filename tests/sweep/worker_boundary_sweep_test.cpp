// Issue 35 through real sweeps on the tiny twin: a worker that hangs in its
// load fails its points at --point-timeout; Ctrl-C during a hung decode ends
// the sweep within a second or so with its results and exit 130; impossible
// decode times fail their points and never reach records.jsonl as speeds; a
// worker that misdescribes the model, or refuses a request as bad input, is
// named; a registered engine whose worker is gone is named before anything
// runs; and every record keeps what the engine applied beside the plan, a
// thread count other than the planned one failing its point.
//
// The misbehaving worker is a test double: the real worker behind a bash
// filter that hangs, or rewrites one kind of answer, as $FAKE_MODE says (the
// real engine cannot be made to do these things on purpose).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/engine_registry.hpp"
#include "support/run_records.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using test::expect_all_failed_with;
using test::records_of;

const char* const kProxy = R"(#!/bin/bash
# Test double: the real worker ($REAL_WORKER) behind a filter.
coproc W { exec "$REAL_WORKER"; }
while IFS= read -r line; do
  op=; [[ $line =~ \"op\":\"([a-z_]+)\" ]] && op=${BASH_REMATCH[1]}
  if [[ $FAKE_MODE:$op == hang_load:load || $FAKE_MODE:$op == hang_free:free || ( $FAKE_MODE:$op == hang_decode:decode && -e $FAKE_TRIGGER ) ]]; then
    echo $$ > "$FAKE_READY"; exec sleep 600
  fi
  printf '%s\n' "$line" >&"${W[1]}"
  IFS= read -r reply <&"${W[0]}" || exit 1
  case $FAKE_MODE:$op in
    decode_time:decode) reply=$(sed "s/\"seconds\":[^,}]*/\"seconds\":$FAKE_SECONDS/" <<<"$reply") ;;
    threads:threads) reply=${reply/\"n_threads\":1,/\"n_threads\":3,} ;;
    batch:context) reply=$(sed 's/"n_batch":[0-9]*/"n_batch":1/' <<<"$reply") ;;
    lie_desc:load) reply=$(sed 's/"description":"[^"]*"/"description":"llama 70B"/' <<<"$reply") ;;
    input:decode) reply='{"ok":false,"kind":"input","error":"bad input"}' ;;
  esac
  printf '%s\n' "$reply"
done
)";

// Each test adds its depths, context size and repetitions.
const std::string kBoundarySweep =
    "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 -ub 64 -n 2 --counters none --no-db --quiet";

using test::slurp;

struct ProxySweep {
  fs::path dir = test::scratch_dir();
  fs::path proxy = dir / "worker-proxy";
  fs::path ready = dir / "hung.pid", trigger = dir / "trigger";

  ProxySweep() {
    test::tiny_twin();
    std::ofstream(proxy) << kProxy;
    ::chmod(proxy.c_str(), 0755);
  }
  std::string env(const std::string& mode, const std::string& extra = "") const {
    const fs::path real = fs::path(test::cli_path()).parent_path() / "moesweep-worker";
    return fmt::format(
        "REAL_WORKER={} MOESWEEP_WORKER={} FAKE_MODE={} FAKE_READY={} "
        "FAKE_TRIGGER={} {} ",
        test::shell_quoted(real), test::shell_quoted(proxy), mode, test::shell_quoted(ready),
        test::shell_quoted(trigger), extra);
  }
  test::CommandResult sweep(const std::string& mode, const std::string& args,
                            const std::string& extra_env = "") const {
    return test::run_shell(env(mode, extra_env) + test::cli_path() + " " + kBoundarySweep + " " +
                           args + " --out-dir " + test::shell_quoted(dir / ("runs-" + mode)));
  }
  fs::path run(const std::string& mode) const { return test::only_run_dir(dir / ("runs-" + mode)); }
  pid_t hung_pid() const {
    pid_t pid = 0;
    std::ifstream(ready) >> pid;
    return pid;
  }
};

TEST(BoundarySweep, AHungLoadFailsItsPointsAtThePointTimeout) {  // D1
  const ProxySweep s;
  const auto r = s.sweep("hang_load", "-d 0 -c 256 -r 1 --point-timeout 2");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  expect_all_failed_with(records_of(s.run("hang_load")), "no answer within 2 s (--point-timeout)");
  ASSERT_GT(s.hung_pid(), 0);
  EXPECT_FALSE(test::process_alive(s.hung_pid())) << "the hung worker was left behind";
}

TEST(BoundarySweep, CtrlCDuringAHungDecodeKeepsTheResultsAndExits130) {  // D2
  const ProxySweep s;
  const fs::path out = s.dir / "runs";
  const pid_t cli = test::spawn_shell(
      "exec env " + s.env("hang_decode") + test::cli_path() + " " + kBoundarySweep +
          " -d 0,32,64,128 -c 256 -r 20 --out-dir " + test::shell_quoted(out),
      s.dir / "out", s.dir / "err");
  ASSERT_GT(cli, 0);
  const auto deadline = Clock::now() + std::chrono::seconds(240);
  fs::path run;
  while (Clock::now() < deadline && s.hung_pid() == 0) {
    if (run.empty() && fs::exists(out))
      for (const auto& e : fs::directory_iterator(out)) run = e.path();
    if (!run.empty() && !test::read_lines(run / "records.jsonl").empty())
      std::ofstream(s.trigger) << "hang\n";  // the next decode hangs
    if (::waitpid(cli, nullptr, WNOHANG) == cli)
      FAIL() << slurp(s.dir / "out") + slurp(s.dir / "err");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(s.hung_pid(), 0) << "the fake never hung";
  ASSERT_EQ(::kill(cli, SIGINT), 0);
  EXPECT_EQ(test::wait_exit_code(cli, std::chrono::seconds(60)), 130)
      << slurp(s.dir / "out") + slurp(s.dir / "err");
  EXPECT_FALSE(test::process_alive(s.hung_pid()))
      << "the hung worker outlived the interrupted sweep";
  const nlohmann::json meta = nlohmann::json::parse(slurp(run / "meta.json"));
  EXPECT_EQ(meta.at("status"), "interrupted");
  const auto records = records_of(run);
  EXPECT_GE(records.size(), 1u);
  for (const nlohmann::json& rec : records) EXPECT_TRUE(rec.at("ok").get<bool>()) << rec;
}

TEST(BoundarySweep, ImpossibleDecodeTimesFailTheirPointsAndTheRunStaysReadable) {  // D5, D6
  const ProxySweep s;
  for (auto [seconds, why] : {std::pair{"5e-324", "below the"}, {"1e9", "by moesweep's clock"}}) {
    SCOPED_TRACE(seconds);
    const auto r =
        s.sweep("decode_time", "-d 0 -c 256 -r 1", fmt::format("FAKE_SECONDS={}", seconds));
    EXPECT_EQ(r.exit_code, 3) << r.err;  // points failed: not exit 2 reading its own file
    const fs::path run = s.run("decode_time");
    expect_all_failed_with(records_of(run), why);
    EXPECT_EQ(nlohmann::json::parse(slurp(run / "meta.json")).at("status"), "points_failed");
    const auto report = test::run_cli("report " + test::shell_quoted(run));
    EXPECT_NE(report.exit_code, 2) << report.err;  // the run's files read back
    fs::remove_all(s.dir / "runs-decode_time");
  }
}

TEST(BoundarySweep, AWorkerThatMisdescribesTheModelFailsItsPoints) {  // D9
  const ProxySweep s;
  const auto r = s.sweep("lie_desc", "-d 0 -c 256 -r 1");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  expect_all_failed_with(records_of(s.run("lie_desc")), "'llama 70B'");
  EXPECT_EQ(slurp(s.run("lie_desc") / "meta.json").find("llama 70B"), std::string::npos);
}

TEST(BoundarySweep, TheRecordKeepsWhatTheEngineAppliedAndAnotherThreadCountFailsIt) {  // §3
  const ProxySweep s;
  auto r = s.sweep("none", "-d 0 -r 1 -c 80 -p 16");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ok = records_of(s.run("none"));
  ASSERT_EQ(ok.size(), 1u);
  const nlohmann::json& applied = ok[0].at("extra").at("applied");
  EXPECT_EQ(applied.at("n_threads"), 1) << applied;
  EXPECT_EQ(applied.at("type_k"), "f16") << applied;
  EXPECT_TRUE(applied.at("flash_attn").is_number()) << applied;  // auto, resolved
  EXPECT_GE(applied.at("n_ctx").get<int>(), 80) << applied;      // rounded up: kept, shown
  if (applied.at("n_ctx") != 80) {
    EXPECT_TRUE(ok[0].at("extra").contains("applied_notes")) << ok[0];
  }
  const nlohmann::json& mem = ok[0].at("memory");
  ASSERT_TRUE(mem.contains("kv_bytes") && mem.contains("kv_expected_bytes")) << mem;
  // The engine's padding of n_ctx is no discrepancy of its KV figure.
  EXPECT_NEAR(mem.at("kv_bytes").get<double>() / mem.at("kv_expected_bytes").get<double>(), 1, 0.05)
      << mem;

  r = s.sweep("threads", "-d 0,64 -c 256 -r 1");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto refused = records_of(s.run("threads"));
  expect_all_failed_with(refused, "the engine applied n_threads 3 where the plan asked for 1");
  for (const nlohmann::json& rec : refused)
    EXPECT_EQ(rec.at("extra").at("applied").at("n_threads"), 3) << rec;
}

// Issue 44, item 13: a worker that applies n_batch 1 under an n_ubatch of 64
// (not the engine's cap at the context) fails its points, naming it.
TEST(BoundarySweep, ABatchBelowItsUbatchFailsThePointNotANote) {
  const ProxySweep s;
  const auto r = s.sweep("batch", "-d 0 -c 256 -r 1");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  expect_all_failed_with(records_of(s.run("batch")),
                         "the engine applied n_batch 1 where the plan asked for 2048");
  EXPECT_EQ(r.err.find("caps the batch at the context"), std::string::npos) << r.err;
}

// Issue 44, item 2: a worker that stopped answering after its context held
// the sweep past --point-timeout: freeing a context had a deadline of its own
// (60 s), and the next context then found the worker gone and failed every
// one of its points ("the engine worker is not running"). Every request of a
// model takes the model's one deadline, and a worker that a request ended is
// restarted before the next context: the second context is measured.
TEST(BoundarySweep, FreeingAContextHasThePointTimeoutAndTheNextContextGoesOn) {
  const ProxySweep s;
  const auto r = s.sweep("hang_free", "-d 0 -c 256,512 -r 1 --point-timeout 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto records = records_of(s.run("hang_free"));
  ASSERT_EQ(records.size(), 2u) << r.err;
  for (const nlohmann::json& rec : records) EXPECT_TRUE(rec.at("ok").get<bool>()) << rec;
  ASSERT_GT(s.hung_pid(), 0) << "the fake never hung";
  EXPECT_FALSE(test::process_alive(s.hung_pid())) << "the hung worker was left behind";
}

// Issue 44, item 2, as the probe found it: after a hung worker was restarted,
// the new one answers its context and then stops reading. Every request to
// the restarted worker has the same deadline as the first worker's: each
// point fails at --point-timeout (the fake hangs at every decode) and the
// sweep ends.
TEST(BoundarySweep, ARestartedWorkerThatHangsAfterItsContextFailsAtThePointTimeout) {
  const ProxySweep s;
  std::ofstream(s.trigger) << "hang\n";  // every worker's first decode hangs
  const auto r = s.sweep("hang_decode", "-d 0,64 -c 256 -r 1 --point-timeout 2");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto records = records_of(s.run("hang_decode"));
  ASSERT_EQ(records.size(), 2u) << r.err;
  // The second point's failure is the restarted worker's: a worker left
  // ended would fail it as "not running", one without a deadline hang.
  expect_all_failed_with(records, "no answer within 2 s (--point-timeout)");
  ASSERT_GT(s.hung_pid(), 0) << "the fake never hung";
  EXPECT_FALSE(test::process_alive(s.hung_pid())) << "the hung worker was left behind";
}

// A registry holding `name`, whose worker is `worker`.
fs::path registry_with(const fs::path& dir, const std::string& name, const fs::path& worker) {
  RegisteredEngine e;
  e.name = name;
  e.source = "a test double";
  e.worker = worker;
  fs::create_directories(dir / "registry" / name);
  write_engine_file(dir / "registry" / name / "engine.json", e);
  return dir / "registry";
}

TEST(BoundarySweep, AnEnginesRefusalOrMissingWorkerIsNamed) {  // D17, D18
  const ProxySweep s;
  const fs::path registry = registry_with(s.dir, "liar", s.proxy);
  // The default engine runs the real worker; only the registered one is the filter.
  const fs::path real = fs::path(test::cli_path()).parent_path() / "moesweep-worker";
  const auto r = s.sweep("input", "-d 0 -c 256 -r 1 --engine default,liar",
                         "MOESWEEP_ENGINES=" + test::shell_quoted(registry) +
                             " MOESWEEP_WORKER=" + test::shell_quoted(real));
  // Issue 44, item 18: a refusal in the middle of a run fails that engine's
  // point, named, and the sweep goes on (it stopped the whole sweep, exit 2).
  EXPECT_EQ(r.exit_code, 3) << r.err;
  int failed = 0;
  for (const nlohmann::json& rec : records_of(s.run("input"))) {
    if (rec.at("engine") != "liar") {
      EXPECT_TRUE(rec.at("ok").get<bool>()) << rec;
      continue;
    }
    ++failed;
    EXPECT_FALSE(rec.at("ok").get<bool>()) << rec;
    const std::string error = rec.at("error");
    EXPECT_NE(error.find("engine 'liar': the engine worker"), std::string::npos) << error;
    EXPECT_NE(error.find("refused its decode request: bad input"), std::string::npos) << error;
  }
  EXPECT_EQ(failed, 1);

  const fs::path ghost = registry_with(s.dir, "ghost", s.dir / "gone" / "moesweep-worker");
  const auto g =
      test::run_shell("MOESWEEP_ENGINES=" + test::shell_quoted(ghost) + " " + test::cli_path() +
                      " " + kBoundarySweep + " -d 0 -c 256 -r 1 --engine ghost --out-dir " +
                      test::shell_quoted(s.dir / "ghost-runs"));
  EXPECT_EQ(g.exit_code, 2) << g.err;
  EXPECT_NE(g.err.find("engine 'ghost': its worker"), std::string::npos) << g.err;
  EXPECT_NE(g.err.find("register it again"), std::string::npos) << g.err;
  EXPECT_EQ(g.err.find("scripts/setup"), std::string::npos) << g.err;
  EXPECT_FALSE(fs::exists(s.dir / "ghost-runs"));
}

}  // namespace
}  // namespace moesweep
