// A serve-bench run directory read back for compare is input like any file:
// a request line with a mistyped field, or nested past the JSON depth limit,
// is a UserError (exit 2) naming the file and line, never an exception from
// the JSON library.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "serve/serve_compare.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

std::string serve_run_with(const std::string& request_line) {
  const std::filesystem::path dir = test::scratch_dir() / "serve-run";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "meta.json") << R"({"kind": "serve"})";
  std::ofstream(dir / "requests.jsonl")
      << R"({"ok": true, "config": "default", "workload": "w", "ttft_ms": 10})"
      << "\n"
      << request_line << "\n"
      << R"({"ok": true, "config": "default", "workload": "w", "ttft_ms": 11})"
      << "\n";
  return dir.string();
}

void expect_refused(const std::string& line, const std::string& says) {
  const std::string dir = serve_run_with(line);
  ASSERT_TRUE(is_serve_run(dir));
  try {
    load_serve_run(dir);
    FAIL() << "accepted: " << line;
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(e.problem().find("requests.jsonl:2"), std::string::npos) << e.problem();
    EXPECT_NE(e.problem().find(says), std::string::npos) << e.problem();
  }
}

TEST(ServeRunFile, MistypedOrTooDeepRequestLinesAreRefusedWithTheirLine) {
  expect_refused(R"({"ok": "yes", "workload": "w"})", "field 'ok'");
  expect_refused(R"({"ok": true, "workload": 7})", "field 'workload'");
  expect_refused(std::string(100000, '[') + std::string(100000, ']'), "not JSON");
}

TEST(ServeRunFile, ItlSamplesThatAreNoNumbersAreSkipped) {
  const std::string dir = serve_run_with(
      R"({"ok": true, "config": "default", "workload": "w", "ttft_ms": 12, "itl_ms": [1, "x", 2]})");
  const ServeRun run = load_serve_run(dir);
  ASSERT_EQ(run.requests.size(), 3u);
  const ServeComparison c = compare_serve_runs(run, run, CompareOptions{});
  ASSERT_EQ(c.groups.size(), 1u);
}

}  // namespace
}  // namespace moesweep
