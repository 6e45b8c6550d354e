// Issue 35, an external tool's boundary (engine add --exec): a tool that
// closes its output and stays is ended at its deadline; what it starts (a
// setsid() daemon holding its pipe) ends with it; its rows are checked
// against the plan (threads, batch sizes, the model file), against each other
// (a depth measured twice, differently) and against the clock (a time below
// the physical floor, rows adding up to more than the run took); a row of
// nan is named as such. The tools are test doubles (shell scripts standing in
// for llama-sweep-bench and llama-bench): the real ones cannot be made to
// misbehave on purpose.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/exec_tool.hpp"
#include "engine/shared_engines.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using test::expect_all_failed_with;
using test::shell_quoted;

// A test double for llama-sweep-bench: rows for N_KV 0 and 64 with the
// threads and batch sizes of its command line, or what $FAKE_MODE asks for.
// It runs 50 ms, so that the times of its rows fit in its run.
const char* const kFakeSweepBench = R"(#!/bin/sh
[ "$1" = --version ] && { echo 'version: 77 (0123abcd)' >&2; exit 0; }
t=0; tb=0; b=0; ub=0
while [ $# -gt 0 ]; do
  case "$1" in -t) t=$2;; -tb) tb=$2;; -b) b=$2;; -ub) ub=$2;; esac
  shift
done
row() {  # N_KV T_PP T_TG [THREADS]
  echo "{\"n_kv_max\": 192, \"n_batch\": $b, \"n_ubatch\": $ub, \"flash_attn\": -1, \"n_gpu_layers\": 0, \"n_threads\": ${4:-$t}, \"n_threads_batch\": $tb, \"pp\": 64, \"tg\": 4, \"n_kv\": $1, \"t_pp\": $2, \"speed_pp\": 1, \"t_tg\": $3, \"speed_tg\": 1}"
}
sleep 0.05
echo "llama_model_load: a log line"
case "$FAKE_MODE" in
  threads) row 0 0.001 0.001 64; row 64 0.001 0.001 64 ;;
  conflict) row 0 0.001 0.001; row 64 0.001 0.001; row 0 0.00001 0.001 ;;
  batch) b=1; ub=4096; row 0 0.001 0.001; row 64 0.001 0.001 ;;
  floor) row 0 0.0000001 0.001; row 64 0.001 0.001 ;;
  claims) row 0 0.001 30; row 64 0.001 30 ;;
  nan) echo '{"n_kv_max": 192, "pp": 64, "tg": 4, "n_kv": 0, "t_pp": nan, "speed_pp": nan, "t_tg": 0.001, "speed_tg": 4000}' ;;
  hang) row 0 0.001 0.001; exec >&- 2>&-; echo $$ > "$FAKE_PID"; exec sleep 600 ;;
  daemon) setsid sh -c 'echo $$ > "$FAKE_PID"; exec sleep 600' &
          while [ ! -s "$FAKE_PID" ]; do sleep 0.01; done  # the daemon is up
          row 0 0.001 0.001; row 64 0.001 0.001 ;;
  *) row 0 0.001 0.001; row 64 0.001 0.001 ;;
esac
)";

// A test double for llama-bench: a PP and a TG test at N_KV 0 with the given
// samples and model file.
std::string fake_llama_bench(const std::string& samples, const std::string& model) {
  const std::string test = R"({"model_filename": "MODEL", "n_threads": 1, "n_prompt": NP, )"
                           R"("n_gen": NG, "n_depth": 0, "samples_ns": [SAMPLES]})";
  std::string pp = test, tg = test;
  for (auto [text, np, ng] : {std::tuple{&pp, "64", "0"}, std::tuple{&tg, "0", "4"}}) {
    text->replace(text->find("MODEL"), 5, model);
    text->replace(text->find("NP"), 2, np);
    text->replace(text->find("NG"), 2, ng);
    text->replace(text->find("SAMPLES"), 7, samples);
  }
  return "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'version: 5 (abcdef01)'; exit 0; }\n"
         "sleep 0.05\necho '" +
         pp + "'\necho '" + tg + "'\n";
}

struct ExecSweep {
  fs::path dir = test::scratch_dir();
  std::string cli =
      fmt::format("MOESWEEP_ENGINES={} {}", shell_quoted(dir / "registry"), test::cli_path());
  fs::path pid_file = dir / "tool.pid";

  ExecSweep() { test::tiny_twin_of("qwen3-moe"); }
  void add(const std::string& name, const std::string& tool_file, const std::string& script) {
    fs::create_directories(dir / name);
    const fs::path tool = dir / name / tool_file;
    std::ofstream(tool) << script;
    ::chmod(tool.c_str(), 0755);
    const auto r = test::run_shell(cli + " engine add " + name + " --exec " + shell_quoted(tool));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  // A sweep of two points (N_KV 0 and 64) on engine `name`; its records.
  std::vector<nlohmann::json> run(const std::string& name, const std::string& mode, int exit_code,
                                  const std::string& extra = "") {
    const fs::path out = dir / ("runs-" + mode);
    const auto r = test::run_shell(
        fmt::format("FAKE_MODE={} FAKE_PID={} ", mode, shell_quoted(pid_file)) + cli +
        " sweep -m qwen3-moe --scale tiny -d 0,64 -c 256 -ub 64 -p 64 -n 4 -r 1 -t 1 "
        "--counters none --no-db --quiet --engine " +
        name + " " + extra + " --out-dir " + shell_quoted(out));
    EXPECT_EQ(r.exit_code, exit_code) << mode << "\n" << r.out << r.err;
    return test::records_of(test::only_run_dir(out));
  }
  pid_t tool_pid() const {
    pid_t pid = 0;
    std::ifstream(pid_file) >> pid;
    return pid;
  }
};

TEST(ExecBoundary, RowsAreCheckedAgainstThePlanEachOtherAndTheClock) {  // D6, D7, D8, D16
  ExecSweep s;
  s.add("fake", "llama-sweep-bench", kFakeSweepBench);
  for (const nlohmann::json& rec : s.run("fake", "plain", 0)) EXPECT_TRUE(rec.at("ok")) << rec;
  expect_all_failed_with(s.run("fake", "threads", 3), "says it ran n_threads 64");
  expect_all_failed_with(s.run("fake", "batch", 3), "says it ran n_batch 1");
  const auto conflict = s.run("fake", "conflict", 3);
  ASSERT_EQ(conflict.size(), 2u);
  for (const nlohmann::json& rec : conflict)  // N_KV 0 had two rows, 64 had one
    EXPECT_EQ(rec.at("ok").get<bool>(), rec.at("n_kv") == 64) << rec;
  const auto floor = s.run("fake", "floor", 3);
  for (const nlohmann::json& rec : floor) {
    if (rec.at("n_kv") == 0) {
      EXPECT_NE(rec.value("error", std::string()).find("below the"), std::string::npos) << rec;
    }
  }
  expect_all_failed_with(s.run("fake", "claims", 3), "by moesweep's clock");
  expect_all_failed_with(s.run("fake", "nan", 3), "a result row that is not JSON");
}

TEST(ExecBoundary, LlamaBenchSamplesBelowTheFloorOrOfAnotherModelFailThePoint) {  // D6, D7
  ExecSweep s;
  s.add("one-ns", "llama-bench", fake_llama_bench("1", test::tiny_twin_of("qwen3-moe").string()));
  s.add("other-model", "llama-bench", fake_llama_bench("1000000", "/etc/hostname"));
  for (auto [name, why] : {std::pair{"one-ns", "below the"}, {"other-model", "/etc/hostname"}}) {
    const fs::path out = s.dir / name;
    const auto r = test::run_shell(s.cli +
                                   " sweep -m qwen3-moe --scale tiny -d 0 -c 256 -ub 64 -p 64 -n "
                                   "4 -r 1 -t 1 --counters none --no-db --quiet --engine " +
                                   name + " --out-dir " + shell_quoted(out));
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    expect_all_failed_with(test::records_of(test::only_run_dir(out)), why);
  }
}

TEST(ExecBoundary, AToolThatClosesItsOutputAndStaysIsEndedAtItsDeadline) {  // D4
  ExecSweep s;
  s.add("fake", "llama-sweep-bench", kFakeSweepBench);
  expect_all_failed_with(s.run("fake", "hang", 3, "--point-timeout 1"),
                         "closed its output but did not end within 2 s");
  ASSERT_GT(s.tool_pid(), 0);
  EXPECT_FALSE(test::process_alive(s.tool_pid())) << "the tool outlived its deadline";
}

TEST(ExecBoundary, AVersionThatClosesItsOutputAndStaysIsEndedAtItsDeadline) {  // D4
  // What `engine add --exec` asks first; the test double hangs there.
  const fs::path dir = test::scratch_dir();
  const fs::path tool = dir / "llama-sweep-bench", pid_file = dir / "version.pid";
  std::ofstream(tool) << "#!/bin/sh\nexec >&- 2>&-\necho $$ > " << shell_quoted(pid_file)
                      << "\nexec sleep 600\n";
  ::chmod(tool.c_str(), 0755);
  const auto t0 = std::chrono::steady_clock::now();
  const ExecVersion v = exec_version(tool, 1);
  EXPECT_TRUE(v.release.empty() && v.commit.empty()) << v.release << " " << v.commit;
  // Not a timing test: a wait without a deadline would not return at all.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
  pid_t pid = 0;
  std::ifstream(pid_file) >> pid;
  ASSERT_GT(pid, 0) << "the test double never ran";
  EXPECT_FALSE(test::process_alive(pid)) << "the tool outlived its --version deadline";
}

TEST(ExecBoundary, ADaemonTheToolStartedEndsWithItsRun) {  // D13
  ExecSweep s;
  s.add("fake", "llama-sweep-bench", kFakeSweepBench);
  for (const nlohmann::json& rec : s.run("fake", "daemon", 0)) EXPECT_TRUE(rec.at("ok")) << rec;
  ASSERT_GT(s.tool_pid(), 0);
  EXPECT_FALSE(test::process_alive(s.tool_pid()))
      << "the tool's setsid() daemon outlived the sweep";
}

}  // namespace
}  // namespace moesweep
