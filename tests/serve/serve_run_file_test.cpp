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

TEST(ServeRunFile, EveryFieldCompareReadsIsCheckedNeverNarrowed) {
  expect_refused(R"({"ok": true, "workload": "w", "itl_ms": [1, "x", 2]})", "field 'itl_ms'");
  expect_refused(R"({"ok": true, "workload": "w", "ttft_ms": "fast"})", "field 'ttft_ms'");
  expect_refused(R"({"ok": true, "workload": "w", "cache_n": 4294967312})",
                 "field 'cache_n' is 4294967312");
  expect_refused(R"({"ok": true, "workload": "w", "generated": 1.5})", "field 'generated'");
}

TEST(ServeRunFile, ATornLastLineIsLeftOutAndNamed) {
  const std::string dir = serve_run_with(R"({"ok": true, "config": "default", "workload": "w"})");
  std::ofstream(std::filesystem::path(dir) / "requests.jsonl", std::ios::app)
      << R"({"ok": true, "config": "def)";
  const ServeRun run = load_serve_run(dir);
  EXPECT_EQ(run.requests.size(), 3u);
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_NE(run.notes[0].find("requests.jsonl:4 ends in a torn line"), std::string::npos);
  const ServeComparison c = compare_serve_runs(run, run, CompareOptions{});
  ASSERT_EQ(c.groups.size(), 1u);
}

TEST(ServeRunFile, ABrokenMetaJsonIsAnErrorNotAnotherKindOfRun) {
  const std::string dir = serve_run_with(R"({"ok": true, "workload": "w"})");
  std::ofstream(std::filesystem::path(dir) / "meta.json") << R"({"kind": "serve", "stat)";
  EXPECT_THROW(is_serve_run(dir), UserError);
  std::ofstream(std::filesystem::path(dir) / "meta.json")
      << R"({"kind": "serve", "workloads": [{"workload": "w", "levels": [{"concurrency": "8"}]}]})";
  EXPECT_THROW(load_serve_run(dir), UserError);
}

}  // namespace
}  // namespace moesweep
