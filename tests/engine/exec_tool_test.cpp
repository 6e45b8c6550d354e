// Another engine's benchmark binary as an engine (engine/exec_tool.hpp): the
// command lines it gets for a context of the plan, and its output read as
// untrusted text (the engine's log lines skipped, a wrong row named).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "engine/engine_file.hpp"
#include "engine/exec_tool.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

// The value after `flag` in argv ("" when absent).
std::string after(const std::vector<std::string>& argv, const std::string& flag) {
  const auto it = std::find(argv.begin(), argv.end(), flag);
  return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

ExecRequest request(ExecTool tool) {
  ExecRequest r;
  r.exe = "/opt/ik/bin/llama-sweep-bench";
  r.tool = tool;
  r.model = "/m/twin.gguf";
  r.n_batch = 256;
  r.n_ubatch = 64;
  r.pp = 64;
  r.tg = 8;
  r.depths = {0, 128, 256};
  r.n_threads = 2;
  r.n_threads_batch = 2;
  r.repetitions = 3;
  return r;
}

TEST(ExecTool, SweepBenchWalksToTheDeepestDepthInTheStrideTheDepthsNeed) {
  const std::vector<std::string> a = exec_argv(request(ExecTool::kSweepBench));
  EXPECT_EQ(a.front(), "/opt/ik/bin/llama-sweep-bench");
  EXPECT_EQ(after(a, "-c"), "320");            // deepest 256 + one ubatch of PP
  EXPECT_EQ(after(a, "--sweep-stride"), "2");  // 0, 128, 256 = every 2nd ubatch
  EXPECT_EQ(after(a, "-ub"), "64");
  EXPECT_EQ(after(a, "-n"), "8");
  EXPECT_EQ(after(a, "-tb"), "2");
  EXPECT_EQ(after(a, "--output-format"), "jsonl");
  EXPECT_EQ(after(a, "-fa"), "");  // auto: the tool's own default
  ExecRequest on = request(ExecTool::kSweepBench);
  on.flash_attn = 1;
  on.depths = {0, 192};
  on.no_mmap = true;
  const std::vector<std::string> b = exec_argv(on);
  EXPECT_EQ(after(b, "-fa"), "on");
  EXPECT_EQ(after(b, "--sweep-stride"), "3");
  EXPECT_NE(std::find(b.begin(), b.end(), "--no-mmap"), b.end());
}

TEST(ExecTool, LlamaBenchGetsEveryDepthAndTheRepetitions) {
  const std::vector<std::string> a = exec_argv(request(ExecTool::kLlamaBench));
  EXPECT_EQ(after(a, "-d"), "0,128,256");
  EXPECT_EQ(after(a, "-p"), "64");
  EXPECT_EQ(after(a, "-n"), "8");
  EXPECT_EQ(after(a, "-r"), "3");
  EXPECT_EQ(after(a, "-o"), "jsonl");
}

// Written as ik_llama.cpp's llama-sweep-bench prints it (--output-format jsonl),
// between the engine's log lines.
const char* kSweepBenchOutput =
    "llama_model_loader: loaded meta data with 40 key-value pairs\n"
    "{ this brace starts a log line, not a row\n"
    "{\"n_kv_max\": 320, \"n_batch\": 256, \"n_ubatch\": 64, \"flash_attn\": 1, \"n_gpu_layers\": "
    "-1, \"n_threads\": 2, \"n_threads_batch\": 2, \"pp\": 64, \"tg\": 8, \"n_kv\": 0, \"t_pp\": "
    "0.041000, \"speed_pp\": 1560.975586, \"t_tg\": 0.013000, \"speed_tg\": 615.384583 }\n"
    "{\"n_kv_max\": 320, \"n_batch\": 256, \"n_ubatch\": 64, \"flash_attn\": 1, \"n_gpu_layers\": "
    "-1, \"n_threads\": 2, \"n_threads_batch\": 2, \"pp\": 64, \"tg\": 8, \"n_kv\": 128, \"t_pp\": "
    "0.050000, \"speed_pp\": 1280.0, \"t_tg\": 0.016000, \"speed_tg\": 500.0 }\n"
    "llama_print_timings:        load time =     120.00 ms\n";

TEST(ExecTool, SweepBenchRowsAreReadFromBetweenTheLogLines) {
  const std::vector<ExecRow> rows =
      parse_exec_output(ExecTool::kSweepBench, kSweepBenchOutput, "out");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].n_kv, 128);
  EXPECT_EQ(rows[1].n_threads, 2);
  EXPECT_EQ(rows[1].pp.tokens, 64);
  EXPECT_EQ(rows[1].tg.tokens, 8);
  ASSERT_EQ(rows[1].pp.seconds.size(), 1u);  // one mean: no repetitions to spread
  EXPECT_DOUBLE_EQ(rows[1].pp.seconds[0], 0.05);
  EXPECT_DOUBLE_EQ(rows[1].tg.seconds[0], 0.016);
}

TEST(ExecTool, LlamaBenchTestsPairUpByDepthWithEveryRepetition) {
  const std::string out =
      "{\"build_commit\": \"abc\", \"n_prompt\": 64, \"n_gen\": 0, \"n_depth\": 0, \"n_threads\": "
      "2, \"samples_ns\": [40000000, 42000000, 41000000]}\n"
      "{\"n_prompt\": 0, \"n_gen\": 8, \"n_depth\": 0, \"n_threads\": 2, \"samples_ns\": "
      "[13000000, 14000000, 12000000]}\n"
      "{\"n_prompt\": 64, \"n_gen\": 0, \"n_depth\": 128, \"n_threads\": 2, \"samples_ns\": "
      "[50000000, 52000000, 51000000]}\n"
      "{\"n_prompt\": 0, \"n_gen\": 8, \"n_depth\": 128, \"n_threads\": 2, \"samples_ns\": "
      "[16000000, 17000000, 15000000]}\n";
  const std::vector<ExecRow> rows = parse_exec_output(ExecTool::kLlamaBench, out, "out");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].n_kv, 0);
  EXPECT_EQ(rows[1].n_kv, 128);
  EXPECT_EQ(rows[1].tg.tokens, 8);
  EXPECT_EQ(rows[1].tg.seconds, (std::vector<double>{0.016, 0.017, 0.015}));
  EXPECT_EQ(rows[0].pp.seconds.size(), 3u);
}

TEST(ExecTool, ARowThatIsNotTheToolsIsAUserErrorNamingTheLineAndField) {
  const std::pair<ExecTool, std::string> cases[] = {
      {ExecTool::kSweepBench,
       "log\n{\"pp\": 64, \"tg\": 8, \"n_kv\": 0, \"t_pp\": \"fast\", \"speed_pp\": 1, \"t_tg\": "
       "0.1}\n"},
      {ExecTool::kSweepBench,
       "{\"pp\": 64, \"tg\": 8, \"n_kv\": -5, \"t_pp\": 0.1, \"speed_pp\": 1, \"t_tg\": 0.1}\n"},
      {ExecTool::kSweepBench,
       "{\"pp\": 64, \"tg\": 8, \"n_kv\": 0, \"t_pp\": 0, \"speed_pp\": 1, \"t_tg\": 0.1}\n"},
      {ExecTool::kSweepBench, "{\"pp\": 64, \"n_kv\": 0, \"speed_pp\": 1, \"t_pp\": 0.1}\n"},
      {ExecTool::kLlamaBench,
       "{\"n_prompt\": 64, \"n_gen\": 0, \"n_depth\": 0, \"samples_ns\": [-1]}\n"},
      {ExecTool::kLlamaBench,
       "{\"n_prompt\": 64, \"n_gen\": 0, \"n_depth\": 0, \"samples_ns\": \"x\"}\n"},
      {ExecTool::kLlamaBench,
       "{\"n_prompt\": 4294967297, \"n_gen\": 0, \"n_depth\": 0, \"samples_ns\": [1]}\n"},
  };
  for (const auto& [tool, text] : cases) {
    SCOPED_TRACE(text);
    try {
      parse_exec_output(tool, text, "tool output");
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("tool output line"), std::string::npos) << e.what();
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
}

TEST(ExecTool, WhichToolIsToldByTheFileNameOrSaid) {
  const fs::path dir = test::scratch_dir();
  auto tool_file = [&](const std::string& name) {
    const fs::path p = dir / name;
    std::ofstream(p) << "#!/bin/sh\nexit 0\n";
    fs::permissions(p, fs::perms::owner_all);
    return p;
  };
  EXPECT_EQ(detect_exec_tool(tool_file("llama-sweep-bench"), ""), ExecTool::kSweepBench);
  EXPECT_EQ(detect_exec_tool(tool_file("llama-bench-pr123"), ""), ExecTool::kLlamaBench);
  const fs::path other = tool_file("bench");
  EXPECT_THROW(detect_exec_tool(other, ""), UserError);
  EXPECT_EQ(detect_exec_tool(other, "llama-bench"), ExecTool::kLlamaBench);
  EXPECT_THROW(detect_exec_tool(other, "vllm-bench"), UserError);
  EXPECT_THROW(detect_exec_tool(dir / "missing-llama-bench", ""), UserError);
  EXPECT_THROW(detect_exec_tool(dir, ""), UserError);  // a folder
}

TEST(ExecTool, AnExecEngineFileReadsBackAndNeedsItsToolAndPath) {
  RegisteredEngine e;
  e.name = "ikx";
  e.kind = kExecEngineKind;
  e.exec = "/opt/ik/bin/llama-sweep-bench";
  e.exec_tool = "llama-sweep-bench";
  const nlohmann::json j = to_json(e);
  EXPECT_EQ(to_json(engine_from_json(j, "engine.json")), j);
  for (const char* key : {"exec", "exec_tool"}) {
    nlohmann::json bad = j;
    bad[key] = key == std::string("exec") ? "relative/llama-bench" : "perf";
    try {
      engine_from_json(bad, "engine.json");
      ADD_FAILURE() << key;
    } catch (const UserError& err) {
      EXPECT_NE(std::string(err.what()).find(key), std::string::npos) << err.what();
    }
  }
}

}  // namespace
}  // namespace moesweep
