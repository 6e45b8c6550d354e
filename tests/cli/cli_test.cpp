// The CLI's face: --version names the pinned engine and what it was built
// for, `list` shows what ships, and the shipped sweep profiles expand into
// plans with --dry-run on any machine (oversubscription is a warning there).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "model/model_profile.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::CommandResult;

// The commit of the engine tree this build used, read with git itself.
std::string engine_tree_commit() {
  const CommandResult r = test::run_shell(std::string("git -C '") + MOESWEEP_SOURCE_DIR +
                                          "/third_party/llama.cpp' rev-parse HEAD");
  return r.exit_code == 0 ? r.out.substr(0, 40) : "";
}

// The flags of the first processor in /proc/cpuinfo, space-delimited.
std::string cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0) {
      std::string flags = " ";  // not " " + ...: GCC 12 warns (-Wrestrict) on that inlined
      flags += line.substr(line.find(':') + 1);
      return flags += " ";
    }
  return "";
}

TEST(CliVersion, NamesEngineReleaseCommitAndCpuFeatures) {
  const CommandResult r = test::run_cli("--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^moesweep \d+\.\d+\.\d+)"))) << r.out;
  std::smatch commit;
  ASSERT_TRUE(std::regex_search(
      r.out, commit, std::regex(R"(engine: llama\.cpp v0\.4\.0 \(commit ([0-9a-f]{40})\))")))
      << r.out;
  const std::string tree = engine_tree_commit();
  if (!tree.empty()) {  // absent when built from a user's MOESWEEP_LLAMA_DIR
    EXPECT_EQ(commit[1].str(), tree);
  }
  std::smatch features;
  ASSERT_TRUE(
      std::regex_search(r.out, features, std::regex(R"(engine CPU backend: \S+ \(([^)\n]*)\))")))
      << r.out;
  // GGML_NATIVE, or the CPU variant the engine's registry chose for this CPU:
  // every feature it uses is one this CPU has (any x86-64, with or without
  // AVX-512; none is required).
  const std::map<std::string, std::string> flag_of = {{"SSE3", "pni"},
                                                      {"SSSE3", "ssse3"},
                                                      {"AVX", "avx"},
                                                      {"AVX_VNNI", "avx_vnni"},
                                                      {"AVX2", "avx2"},
                                                      {"BMI2", "bmi2"},
                                                      {"F16C", "f16c"},
                                                      {"FMA", "fma"},
                                                      {"AVX512", "avx512f"},
                                                      {"AVX512_VBMI", "avx512vbmi"},
                                                      {"AVX512_VNNI", "avx512_vnni"},
                                                      {"AVX512_BF16", "avx512_bf16"},
                                                      {"AMX_INT8", "amx_int8"}};
  const std::string flags = cpu_flags();
  std::istringstream listed(features[1].str());
  for (std::string f; listed >> f;) {
    // Build options, not CPU flags.
    if (f == "LLAMAFILE" || f == "REPACK" || f == "OPENMP" || flags.empty()) continue;
    ASSERT_TRUE(flag_of.count(f)) << "unknown feature " << f;
    EXPECT_NE(flags.find(" " + flag_of.at(f) + " "), std::string::npos)
        << f << " is used by the build but this CPU lacks " << flag_of.at(f);
  }
  // The engine build says what it is: a prebuilt package or a source build.
  EXPECT_TRUE(r.out.find("prebuilt") != std::string::npos ||
              r.out.find("source") != std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("logical CPUs"), std::string::npos) << r.out;
}

TEST(CliList, ListsModelProfilesSweepProfilesAndQuantTypes) {
  const CommandResult r = test::run_cli("list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"kimi-k2.5", "llama4-scout", "deepseek-v3", "qwen3-moe", "threads-12-16",
                           "long-context", "default", "Q4_K_S", "Q4_K_M", "Q8_0", "Q6_K", "F16"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
  // The real model's size, from the profile arithmetic: read as JSON.
  const CommandResult j = test::run_cli("list --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json listed = nlohmann::json::parse(j.out);
  const ParamCount kimi = count_params(load_model_profile("kimi-k2.5"));
  bool found = false;
  for (const auto& m : listed.at("model_profiles")) {
    if (m.at("name") != "kimi-k2.5") continue;
    found = true;
    EXPECT_EQ(m.at("total_params").get<int64_t>(), kimi.total) << m;
    EXPECT_EQ(m.at("active_params").get<int64_t>(), kimi.active) << m;
    EXPECT_NE(m.at("scales").dump().find("\"tiny\""), std::string::npos) << m;
  }
  EXPECT_TRUE(found) << j.out;
  EXPECT_GT(kimi.total, int64_t{1000} * 1000 * 1000 * 1000) << "a trillion-parameter model";
  EXPECT_LT(kimi.total, int64_t{1100} * 1000 * 1000 * 1000);
  for (const char* q : {"Q4_K_S", "Q8_0", "F16"})
    EXPECT_NE(listed.at("quant_types").dump().find(q), std::string::npos) << q;
}

// The help names the program and what runs the engine (a worker process).
TEST(CliHelp, NamesTheProgramAndTheWorker) {
  const CommandResult r = test::run_cli("--help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: moesweep [OPTIONS] SUBCOMMAND"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worker process"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("in-process"), std::string::npos) << r.out;
}

// The plan's values are tested on the Plan (tests/spec/shipped_profiles_test.cpp);
// here, how --dry-run words it, and that it makes no run directory.
TEST(CliDryRun, Threads12To16ProfileShowsThePlanWithoutRunning) {
  const std::filesystem::path out = test::scratch_dir() / "runs";
  const CommandResult r = test::run_cli(
      "sweep --profile threads-12-16 --dry-run --no-db --out-dir '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("8 points, 1 model load(s), 1 context(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ctx 8192 b 2048 ub 512 K q8_0 V q8_0 fa on"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threads (gen/batch): 16/16 14/14 13/13 12/12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cost: "), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out)) << "a dry run made a run directory";
}

TEST(CliDryRun, FlagsOverrideTheProfile) {
  const CommandResult r =
      test::run_cli("sweep --profile threads-12-16 -t 2 --depths 0 --dry-run --no-db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 points"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threads (gen/batch): 2/2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("K q8_0 V q8_0 fa on"), std::string::npos)
      << r.out;  // kept from the profile
}

TEST(CliDryRun, OversubscriptionIsAWarningNotARefusal) {
  // 512, the engine's most: a machine with more logical CPUs has nothing to warn about.
  if (std::stoi(test::run_shell("nproc").out) >= 512) GTEST_SKIP() << "512 or more CPUs";
  const CommandResult r = test::run_cli("sweep -t 512 --depths 0 -c 1024 --dry-run --no-db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: 512 threads exceed this machine's"), std::string::npos) << r.out;
}

TEST(CliDryRun, InvalidContextIsShownWithItsRule) {
  const CommandResult r =
      test::run_cli("sweep -fa on,off -ctk q8_0 -ctv q8_0 --depths 0 -c 1024 --dry-run --no-db");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("INVALID: -ctv q8_0 needs flash attention"), std::string::npos) << r.out;
}

// Usage errors are exit 2 (bad input), never a crash's 134/139 or CLI11's own codes.
TEST(CliErrors, UnknownSubcommandOrFlagIsExitTwo) {
  EXPECT_EQ(test::run_cli("frobnicate").exit_code, 2);
  EXPECT_EQ(test::run_cli("sweep --no-such-flag").exit_code, 2);
  EXPECT_EQ(test::run_cli("").exit_code, 2);  // a subcommand is required
}

// llama.cpp's spellings after "--" reach llama-server as typed: the rewriting
// to moesweep's long names stops at "--" (llama-server knows -lm, not
// --load-mode). A stand-in server prints its argv and exits; serve-bench shows
// the end of its log in the error.
TEST(CliErrors, ServeBenchPassesFlagsAfterDoubleDashAsTyped) {
  const std::filesystem::path dir = test::scratch_dir();
  const std::filesystem::path server = dir / "fake-llama-server";
  std::ofstream(server) << "#!/bin/sh\necho \"argv: $*\"\nexit 1\n";
  std::filesystem::permissions(server, std::filesystem::perms::owner_all);
  const CommandResult r = test::run_cli(
      "serve-bench --gguf /nonexistent/x.gguf --no-db --workload prompt-cache --server-bin '" +
      server.string() + "' --out-dir '" + (dir / "runs").string() + "' -- -lm mmap -tb 2 -ub 256");
  EXPECT_EQ(r.exit_code, 2);  // the stand-in never gets ready
  EXPECT_NE(r.err.find("argv: -lm mmap -tb 2 -ub 256 "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--load-mode"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
