#pragma once
// Real engine builds the tests share (engine_builds_test.cpp, ik_engine_test.cpp,
// exec_engine_test.cpp):
// registered once per build tree, under a file lock, in
// build/test-tmp/shared-engines; each costs a build the first time only.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/engine_registry.hpp"
#include "support/run_records.hpp"
#include "support/test_support.hpp"

namespace moesweep::test {

inline std::filesystem::path shared_registry() {
  return std::filesystem::path(test_tmp_dir()) / "shared-engines";
}

// `command` with MOESWEEP_ENGINES pointing at the shared registry.
inline std::string with_registry(const std::string& command) {
  return "MOESWEEP_ENGINES=" + shell_quoted(shared_registry()) + " " + command;
}

// Registers `name` with `engine add` arguments `args` unless it is there already,
// registered after this build's own worker was last built (an older registration's
// worker may speak another protocol version: it is removed and added again).
inline void ensure_engine(const std::string& name, const std::string& args) {
  std::filesystem::create_directories(shared_registry());
  const std::string cli = cli_path();
  const std::string add = with_registry(cli + " engine add " + name + " " + args);
  const std::string remove = with_registry(cli + " engine remove " + name);
  const std::string registered = shell_quoted(shared_registry() / name / "engine.json");
  const std::string own_worker =
      shell_quoted(std::filesystem::path(cli).parent_path() / "moesweep-worker");
  const std::string script = "if [ -f " + registered + " ] && [ " + registered + " -nt " +
                             own_worker + " ]; then exit 0; fi; if [ -f " + registered +
                             " ]; then " + remove + " || exit 1; fi; " + add;
  const auto r = run_shell("flock " + shell_quoted(shared_registry() / ".lock") + " sh -c " +
                           shell_quoted(script));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

// This build's own worker registered by hand under `name`: a second real
// worker of the same build (the A/A side of a gate), nothing compiled.
inline void ensure_same_build(const std::string& name) {
  RegisteredEngine same;
  same.name = name;
  same.source = "this build's worker, registered by hand (test)";
  same.worker = std::filesystem::absolute(std::filesystem::path(cli_path()).parent_path() /
                                          "moesweep-worker");
  std::filesystem::create_directories(shared_registry() / name);
  write_engine_file(shared_registry() / name / "engine.json", same);
}

// What `scripts/ik-snapshot ARGS` prints (the snapshot's checkout, or with
// `--tool T` that tool's path), "" when this machine has no snapshot (exit 3).
inline std::string ik_snapshot(const std::string& args = "") {
  const auto r = run_shell(std::string(source_dir()) + "/scripts/ik-snapshot" +
                           (args.empty() ? "" : " " + args));
  if (r.exit_code == 3) return "";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string path = r.out;
  while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
  return path;
}

}  // namespace moesweep::test
