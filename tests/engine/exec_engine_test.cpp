// Another program's benchmark binary as an engine of a sweep (engine add
// --exec, issue 19): ik_llama.cpp's own llama-sweep-bench, built from the
// shared source snapshot, measured beside our worker in one sweep, its rows
// ingested into the same records and tables, marked as such, with what it
// cannot do left blank with the reason. Where the real tool cannot be made to
// fail on purpose, a test double stands in for it: a shell script named
// llama-sweep-bench (said so where it is used).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/shared_engines.hpp"
#include "serve/server_process.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

using test::shell_quoted;

const std::string kTinySweep =
    " sweep -m qwen3-moe --scale tiny -d 0,64,128 -c 512 -ub 64 -p 64 -n 8 -r 2 --counters none "
    "--no-db";

TEST(ExecEngine, IkLlamasSweepBenchRunsBesideOurWorkerAndIsIngested) {
  const std::string tool = test::ik_snapshot("--tool llama-sweep-bench");
  if (tool.empty()) GTEST_SKIP() << "no ik_llama.cpp snapshot (shared/engines/) here";
  test::ensure_engine("ik-sweep-bench", fmt::format("--exec {}", shell_quoted(tool)));
  const fs::path out = test::scratch_dir() / "runs";
  const auto r = test::run_shell(test::with_registry(
      std::string(test::cli_path()) + kTinySweep +
      " -t 1,2 --allow-oversubscribe --engine default,ik-sweep-bench --out-dir " +
      shell_quoted(out)));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path run = test::only_run_dir(out);
  std::map<std::string, int> points;
  std::set<int> exec_threads;
  for (const nlohmann::json& rec : test::records_of(run)) {
    const std::string engine = rec.at("engine");
    ++points[engine];
    EXPECT_GT(rec.at("speed_pp").get<double>(), 0) << rec;
    EXPECT_GT(rec.at("speed_tg").get<double>(), 0) << rec;
    if (engine != "ik-sweep-bench") {
      EXPECT_FALSE(rec.at("extra").contains("ingested")) << rec;
      continue;
    }
    const nlohmann::json& extra = rec.at("extra");
    EXPECT_EQ(extra.at("engine").at("kind"), "exec") << rec;
    EXPECT_EQ(extra.at("engine").at("tool"), "llama-sweep-bench") << rec;
    EXPECT_EQ(extra.at("ingested").at("tool"), "llama-sweep-bench") << rec;
    EXPECT_NE(extra.at("ingested").at("command").get<std::string>().find("--sweep-stride 1"),
              std::string::npos)
        << rec;
    EXPECT_FALSE(extra.at("ingested").at("blank").at("repetitions").get<std::string>().empty());
    EXPECT_FALSE(extra.at("ingested").at("blank").at("counters").get<std::string>().empty());
    exec_threads.insert(rec.at("n_threads").get<int>());
  }
  EXPECT_EQ(points["ik-sweep-bench"], 6);  // 3 depths x 2 thread counts, one run per thread count
  EXPECT_EQ(points["default"], 6);
  EXPECT_EQ(exec_threads, (std::set<int>{1, 2}));
  std::ifstream in(run / "tables.md");
  const std::string tables((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(tables.find("### ik-sweep-bench against default"), std::string::npos) << tables;
}

// Mainline's llama-bench, built beside llama-server by scripts/setup --server
// from the pinned release's source; "" when there is none.
fs::path mainline_llama_bench() {
  try {
    const fs::path bench = find_llama_server("").parent_path() / "llama-bench";
    return access(bench.c_str(), X_OK) == 0 ? bench : fs::path();
  } catch (const std::exception&) {
    return {};
  }
}

TEST(ExecEngine, MainlinesLlamaBenchGivesEveryRepetitionOfEveryDepth) {
  const fs::path bench = mainline_llama_bench();
  if (bench.empty()) GTEST_SKIP() << "no llama-bench beside llama-server (scripts/setup --server)";
  test::ensure_engine("mainline-bench", fmt::format("--exec {}", shell_quoted(bench)));
  const fs::path out = test::scratch_dir() / "runs";
  const auto r = test::run_shell(
      test::with_registry(std::string(test::cli_path()) + kTinySweep +
                          " -t 1 --engine mainline-bench,default --out-dir " + shell_quoted(out)));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path run = test::only_run_dir(out);
  int ingested = 0;
  for (const nlohmann::json& rec : test::records_of(run)) {
    if (rec.at("engine") != "mainline-bench") continue;
    ++ingested;
    EXPECT_EQ(rec.at("extra").at("engine").at("tool"), "llama-bench") << rec;
    EXPECT_EQ(rec.at("repetitions").at("done"), 2) << rec;  // llama-bench's own -r 2
    EXPECT_FALSE(rec.at("extra").at("ingested").at("blank").contains("repetitions")) << rec;
    EXPECT_GT(rec.at("speed_tg").get<double>(), 0) << rec;
  }
  EXPECT_EQ(ingested, 3);
  int samples = 0;  // every repetition reaches samples.jsonl like the worker's
  for (const std::string& line : test::read_lines(run / "samples.jsonl"))
    samples += line.find("mainline-bench") != std::string::npos;
  EXPECT_EQ(samples, 3 * 2 * 2);  // 3 depths x 2 phases x 2 repetitions
}

// Issue 44 ("also seen"): under --counters sim an exec engine's records had
// empty counters with no reason. The counters attach to moesweep's own
// worker: every field of the backend is there, unavailable, saying why.
TEST(ExecEngine, ItsPhasesSayWhyTheCountersCannotCountThem) {
  const fs::path bench = mainline_llama_bench();
  if (bench.empty()) GTEST_SKIP() << "no llama-bench beside llama-server (scripts/setup --server)";
  test::ensure_engine("mainline-bench", fmt::format("--exec {}", shell_quoted(bench)));
  const fs::path out = test::scratch_dir() / "runs";
  const auto r = test::run_shell(test::with_registry(
      std::string(test::cli_path()) +
      " sweep -m qwen3-moe --scale tiny -d 0 -c 512 -ub 64 -p 64 -n 8 -r 2 -t 1 --counters sim "
      "--no-db --engine mainline-bench --out-dir " +
      shell_quoted(out)));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::vector<nlohmann::json> records = test::records_of(test::only_run_dir(out));
  ASSERT_EQ(records.size(), 1u);
  for (const char* phase : {"pp_phase", "tg_phase"}) {
    const nlohmann::json& c = records[0].at(phase).at("counters");
    for (const char* name : {"instructions_per_token", "ll_hit_rate", "dram_bytes_per_token"})
      EXPECT_NE(c.at(name)
                    .at("unavailable")
                    .get<std::string>()
                    .find("engine 'mainline-bench' is another program's benchmark"),
                std::string::npos)
          << phase << ": " << c.dump(1);
  }
}

// Test double: a script standing in for a llama-sweep-bench that fails (the
// real one cannot be made to on purpose).
fs::path failing_tool(const fs::path& dir) {
  fs::create_directories(dir);
  const fs::path p = dir / "llama-sweep-bench";
  std::ofstream(p) << "#!/bin/sh\n"
                      "[ \"$1\" = --version ] && { echo 'version: 77 (0123abcd)' >&2; exit 0; }\n"
                      "echo 'llama_model_load: error loading model: out of cheese' >&2\n"
                      "exit 3\n";
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

TEST(ExecEngine, AToolThatFailsOrCannotMeasureThePlanFailsOnlyItsPointsWithTheReason) {
  const fs::path dir = test::scratch_dir();
  const std::string cli =
      fmt::format("MOESWEEP_ENGINES={} {}", shell_quoted(dir / "registry"), test::cli_path());
  auto r = test::run_shell(cli + " engine add broken --exec " + shell_quoted(failing_tool(dir)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("release 77, commit 0123abcd"), std::string::npos) << r.out;
  r = test::run_shell(cli + kTinySweep + " -t 1 --engine default,broken --out-dir " +
                      shell_quoted(dir / "a"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // finished, some points failed
  for (const nlohmann::json& rec : test::records_of(test::only_run_dir(dir / "a"))) {
    const bool broken = rec.at("engine") == "broken";
    EXPECT_EQ(rec.at("ok").get<bool>(), !broken) << rec;
    if (!broken) continue;
    EXPECT_NE(rec.at("error").get<std::string>().find("exit 3"), std::string::npos) << rec;
    EXPECT_NE(rec.at("error").get<std::string>().find("out of cheese"), std::string::npos);
  }
  // PP that is not one ubatch: llama-sweep-bench cannot time it, so it is not run.
  r = test::run_shell(cli +
                      " sweep -m qwen3-moe --scale tiny -d 0 -c 256 -ub 64 -p 32 -n 4 -r 1 "
                      "-t 1 --counters none --no-db --engine broken --out-dir " +
                      shell_quoted(dir / "b"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const std::vector<nlohmann::json> recs = test::records_of(test::only_run_dir(dir / "b"));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_NE(recs[0].at("error").get<std::string>().find("set -p to -ub"), std::string::npos)
      << recs[0];
}

TEST(ExecEngine, ABadExecSpecIsExitTwoAndRegistersNothing) {
  const fs::path dir = test::scratch_dir();
  const fs::path registry = dir / "registry";
  const std::string cli =
      fmt::format("MOESWEEP_ENGINES={} {}", shell_quoted(registry), test::cli_path());
  const fs::path tool = failing_tool(dir / "bin");
  const std::string add = " engine add x --exec ";
  const std::string cases[] = {
      add + shell_quoted(dir / "missing" / "llama-bench"),
      add + shell_quoted(dir / "bin"),  // a folder
      add + shell_quoted(tool) + " --exec-tool perf",
      add + shell_quoted(tool) + " --cmake-flag -DGGML_AVX512=OFF",
      add + shell_quoted(tool) + " --release 3.22.1",
  };
  for (const std::string& c : cases) {
    const auto r = test::run_shell(cli + c);
    EXPECT_EQ(r.exit_code, 2) << c << "\n" << r.out << r.err;
    EXPECT_FALSE(fs::exists(registry / "x")) << c;
  }
  // ik_llama.cpp's switches need an engine of ours built on it, not a tool.
  auto r = test::run_shell(cli + " engine add y --exec " + shell_quoted(tool));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_shell(cli + kTinySweep + " -t 1 -fmoe 1 --engine y --out-dir " +
                      shell_quoted(dir / "c"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_FALSE(fs::exists(dir / "c")) << "nothing written";
}

}  // namespace
}  // namespace moesweep
