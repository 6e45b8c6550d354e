#pragma once
// Runs a short helper program (git) and keeps what it printed: for the facts
// a command needs from another tool, never for long work (that is
// engine/build_step.hpp's, which logs and can be stopped).
#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

struct CommandOutput {
  int exit_code = -1;  // the program's exit status; -1 when it did not start or was killed
  std::string out;     // its stdout, at most `max_bytes` (the rest is read and dropped)
  std::string err;     // its stderr, bounded the same way
};

// Runs argv[0] (looked up on PATH) in `cwd` ("" = here) with stdin from
// /dev/null and waits for it.
CommandOutput run_command(const std::vector<std::string>& argv,
                          const std::filesystem::path& cwd = {}, size_t max_bytes = 1 << 20);

// The output's first line, without its line end.
std::string first_line(const std::string& text);

}  // namespace moesweep
