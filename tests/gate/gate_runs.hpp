// `moesweep gate` runs as the gate tests make them (tests/gate, which run
// alone, and tests/gate_any_load, which need no quiet machine): a small
// profile, the gate command with its step summary, and junit.xml as read by
// tests/gate/junit_check.py.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/shared_engines.hpp"
#include "support/test_support.hpp"

namespace moesweep::test {

// The CI gate's shape, smaller: one thread, two depths, five repetitions.
inline std::filesystem::path small_profile(const std::filesystem::path& dir) {
  std::ofstream(dir / "gate.json") << R"({"name": "gate", "model": "kimi-k2.5", "scale": "tiny",
    "threads": "1", "depths": "0,256", "ctx-size": 1024, "n-gen": "32", "repetitions": "5",
    "counters": "none"})";
  return dir / "gate.json";
}

// `moesweep gate --base BASE --new NEW ARGS` with its runs under dir/NEW and
// $GITHUB_STEP_SUMMARY at dir/summary.md.
inline CommandResult gate(const std::filesystem::path& dir, const std::string& base,
                          const std::string& fresh, const std::string& args) {
  return run_shell(with_registry("GITHUB_STEP_SUMMARY=" + shell_quoted(dir / "summary.md") + " " +
                                 cli_path() + " gate --base " + base + " --new " + fresh +
                                 " --out-dir " + shell_quoted(dir / fresh) + " " + args));
}

// junit.xml as tests/gate/junit_check.py reads it (it fails on a file that
// breaks the junit-10 schema's rules).
inline nlohmann::json junit_of(const std::filesystem::path& run) {
  const auto r = run_shell("python3 " + std::string(source_dir()) + "/tests/gate/junit_check.py " +
                           shell_quoted(run / "junit.xml"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

inline int cases_with(const nlohmann::json& junit, const std::string& result,
                      const std::string& classname = "") {
  int n = 0;
  for (const nlohmann::json& c : junit.value("cases", nlohmann::json::array()))
    n += c.at("result") == result &&
         (classname.empty() || c.at("classname").get<std::string>() == classname);
  return n;
}

}  // namespace moesweep::test
