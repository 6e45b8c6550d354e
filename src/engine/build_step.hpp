#pragma once
// One step of `moesweep engine add` (engine/engine_build.cpp): a command run
// with its output in the engine's add.log, and the line the user sees.
#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

struct EngineSource;

struct BuildStep {
  std::string what;  // "fetching llama.cpp package 3.22.1 from the npm registry"
  std::vector<std::string> argv;
};

struct StepEnd {
  int status = 0;        // waitpid's
  bool stopped = false;  // ended by moesweep on SIGINT/SIGTERM (util/stop_signal.hpp)
};

// Runs one step's argv in a process group of its own (stdin /dev/null,
// stdout and stderr appended to `log`), so a stop ends its whole tree: on
// SIGINT/SIGTERM the group gets SIGTERM, then SIGKILL after a grace or at a
// second signal. UserError when the program cannot be started.
StepEnd run_step_logged(const std::vector<std::string>& argv, const std::filesystem::path& log);

// Adds "-G Ninja" and the ccache launchers to a CMake configure command
// where ninja and ccache are on PATH.
void append_generator_and_launcher(std::vector<std::string>& cmake_argv);

// The steps that build an ik_llama.cpp checkout and a worker against it
// (engine/ik_build_steps.cpp). `tree` is moesweep's source tree, `dir` the
// engine's registry folder, `jobs` the build's -j.
std::vector<BuildStep> ik_llama_steps(const std::filesystem::path& tree,
                                      const std::filesystem::path& dir, const EngineSource& src,
                                      const std::string& jobs);

// The folder inside an ik_llama.cpp checkout its libraries are built in: one
// per set of build flags, so that adding the same checkout with other flags
// never reuses a build configured differently.
std::filesystem::path ik_build_dir(const std::filesystem::path& checkout,
                                   const std::vector<std::string>& build_flags);

}  // namespace moesweep
