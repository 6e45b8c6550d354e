#pragma once
// Helpers shared by the tests: scratch directories, running the real CLI, and
// the tiny twin every engine test uses (built once, then taken from the cache).
#include <filesystem>
#include <string>

namespace moesweep::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs build/bin/moesweep with `args` (a shell-quoted string) and captures both streams.
CommandResult run_cli(const std::string& args);
// Runs any shell command, same capture.
CommandResult run_shell(const std::string& command);

// A fresh, empty directory under build/test-tmp named after the running test.
std::filesystem::path scratch_dir();

// The tiny kimi-k2.5 twin at the given quant (default Q4_K_S), built once.
std::filesystem::path tiny_twin(const std::string& quant = "Q4_K_S");

}  // namespace moesweep::test
