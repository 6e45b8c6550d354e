#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace moesweep::test {

CommandResult run_shell(const std::string& command) {
  const std::filesystem::path dir = scratch_dir() / "_cmd";
  std::filesystem::create_directories(dir);
  const std::string out_file = (dir / "stdout").string();
  const std::string err_file = (dir / "stderr").string();
  const std::string full = "(" + command + ") >'" + out_file + "' 2>'" + err_file + "' </dev/null";
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out_file);
  r.err = slurp(err_file);
  return r;
}

CommandResult run_cli(const std::string& args) {
  return run_shell(std::string(MOESWEEP_CLI) + " " + args);
}

std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "global";
  for (char& c : name)
    if (c == '/') c = '_';
  static std::string created_for;
  const std::filesystem::path dir = std::filesystem::path(MOESWEEP_TEST_TMP) / name;
  if (created_for != name) {  // fresh once per test, then reused within it
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    created_for = name;
  }
  return dir;
}

std::filesystem::path tiny_twin(const std::string& quant) {
  // Built through the real CLI so the test exercises what users run; the
  // cache (MOESWEEP_CACHE_DIR, set by ctest) makes every later call instant.
  const CommandResult r = run_cli("synth --model kimi-k2.5 --scale tiny --quant " + quant);
  if (r.exit_code != 0) throw std::runtime_error("moesweep synth failed: " + r.err);
  const std::string marker = "file       ";
  const size_t at = r.out.find(marker);
  if (at == std::string::npos) throw std::runtime_error("synth printed no file line: " + r.out);
  const size_t end = r.out.find('\n', at);
  return r.out.substr(at + marker.size(), end - at - marker.size());
}

}  // namespace moesweep::test
