// GGUFs whose structure is valid but whose hyperparameters the engine asserts
// on while loading (SIGABRT, exit 134, no error return), or that would make
// inspect loop over 2^31 layers: `inspect` and `sweep -m` refuse them before
// the engine sees them, exit 2, naming the key, its exact value and the rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"
#include "synthetic_gguf.hpp"

namespace moesweep {
namespace {

using Key = test::SynthShape::KeyOverride;

struct HostileCase {
  const char* name;
  std::vector<Key> keys;
  const char* in_problem;  // what the error must say
};

const HostileCase kCases[] = {
    {"UsedAboveCount",
     {{"deepseek2.expert_used_count", 1000}},
     "expert_used_count is 1000 with expert_count 16"},
    {"BlockCountZero", {{"deepseek2.block_count", 0}}, "block_count is 0"},
    {"ExpertCountZero",
     {{"deepseek2.expert_count", 0}},
     "expert_count is 0 but expert_used_count is 4"},
    {"BlockCountHuge", {{"deepseek2.block_count", 2147483647}}, "block_count is 2147483647"},
    // Shown as the file holds it, never as -1.
    {"ExpertCountU64Max",
     {{"deepseek2.expert_count", UINT64_MAX, /*u64=*/true}},
     "expert_count is 18446744073709551615"},
};

std::filesystem::path hostile_file(const HostileCase& c) {
  test::SynthShape s;
  s.layers = 2;
  s.hidden = 256;
  s.heads = 2;
  s.q_lora = 256;
  s.kv_lora = 64;
  s.experts = 16;
  s.used = 4;
  s.expert_ff = 256;
  s.dense_ff = 256;
  s.vocab = 256;
  s.key_overrides = c.keys;
  return test::write_synthetic_gguf(test::scratch_dir(), c.name, s).front();
}

void expect_refused(const test::CommandResult& r, const HostileCase& c) {
  EXPECT_EQ(r.exit_code, 2) << r.err;  // not 134 (engine assert) or 0
  EXPECT_NE(r.err.find(c.in_problem), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" -1"), std::string::npos) << r.err;
}

class HostileGguf : public ::testing::TestWithParam<HostileCase> {};

TEST_P(HostileGguf, InspectRefusesItInsteadOfPrintingNonsense) {
  const std::filesystem::path file = hostile_file(GetParam());
  const test::CommandResult r = test::run_cli("inspect '" + file.string() + "'");
  expect_refused(r, GetParam());
  EXPECT_EQ(r.out.find("experts"), std::string::npos) << r.out;  // no "1000/16 experts"
  expect_refused(test::run_cli("inspect --json '" + file.string() + "'"), GetParam());
}

TEST_P(HostileGguf, SweepRefusesItBeforeTheEngineLoadsIt) {
  const std::filesystem::path file = hostile_file(GetParam());
  const std::filesystem::path out = test::scratch_dir() / "runs";
  const test::CommandResult r =
      test::run_cli("sweep -m '" + file.string() +
                    "' --depths 0 -t 1 -c 256 -ub 64 -n 2 -r 1 --counters none --no-db --quiet "
                    "--out-dir '" +
                    out.string() + "'");
  expect_refused(r, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keys, HostileGguf, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// With the pre-check off (a test-only switch), the same file reaches the real
// engine, which aborts (GGML_ASSERT n_expert <= LLAMA_MAX_EXPERTS) in its own
// process: that model's points fail, saying how the worker died and what the
// engine said last; the next model of the sweep is measured.
TEST(HostileGgufInTheEngine, AnEngineAbortFailsOnlyThatModel) {
  const std::filesystem::path file =
      hostile_file({"ExpertCountAboveMax", {{"deepseek2.expert_count", 2000}}, ""});
  const std::filesystem::path out = test::scratch_dir() / "runs";
  const test::CommandResult r = test::run_shell(
      "MOESWEEP_SKIP_GGUF_PRECHECK=1 " + std::string(MOESWEEP_CLI) + " sweep -m '" + file.string() +
      "," + test::tiny_twin().string() +
      "' --depths 0 -t 1 -c 256 -ub 64 -n 2 -r 1 --counters none --no-db --quiet --out-dir '" +
      out.string() + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;  // finished, some points failed: not 134
  int failed = 0, ok = 0;
  for (const std::string& line : test::read_lines(test::only_run_dir(out) / "records.jsonl")) {
    const nlohmann::json rec = nlohmann::json::parse(line);
    if (rec.value("ok", true)) {
      ++ok;
      continue;
    }
    ++failed;
    const std::string error = rec.value("error", std::string());
    EXPECT_NE(error.find("model load failed"), std::string::npos) << error;
    EXPECT_NE(error.find("SIGABRT"), std::string::npos) << error;
    EXPECT_NE(error.find("n_expert <= LLAMA_MAX_EXPERTS"), std::string::npos) << error;
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(ok, 1);
}

// A depth beyond any context made depth x KV bytes wrap around uint64 and
// print a plausible number; 2^64-1 is shown as written, never as -1.
TEST(InspectDepth, DepthsNoContextHoldsAreRefused) {
  const std::filesystem::path file = hostile_file({"Valid", {}, ""});
  const std::string cmd = "inspect '" + file.string() + "' --depth ";
  ASSERT_EQ(test::run_cli(cmd + "131072").exit_code, 0);
  const test::CommandResult max = test::run_cli(cmd + "18446744073709551615");
  EXPECT_EQ(max.exit_code, 2) << max.err;
  EXPECT_NE(max.err.find("18446744073709551615 is out of range"), std::string::npos) << max.err;
  EXPECT_EQ(max.err.find("-1"), std::string::npos) << max.err;
  for (const char* depth : {"9223372036854775807", "16777217", "-1"}) {
    SCOPED_TRACE(depth);
    const test::CommandResult r =
        test::run_cli("inspect '" + file.string() + "' --depth=" + depth);  // = for "-1"
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("is not one depth a context can hold"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("expected: one number from 0 to 16777216"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace moesweep
