#pragma once
// A program every engine worker this process starts runs under, e.g.
// `valgrind --tool=callgrind ...` for the simulated counters (--counters sim):
// the worker's path is appended to the prefix and the whole argv executed.
// Process-wide, set for the length of a run by ScopedWorkerLauncher; empty
// (the default): workers run directly.
#include <string>
#include <vector>

namespace moesweep {

std::vector<std::string> worker_launcher();
// The launcher as one line (for cache keys and messages); "" when none.
std::string worker_launcher_text();

class ScopedWorkerLauncher {
 public:
  explicit ScopedWorkerLauncher(std::vector<std::string> prefix);
  ~ScopedWorkerLauncher();
  ScopedWorkerLauncher(const ScopedWorkerLauncher&) = delete;
  ScopedWorkerLauncher& operator=(const ScopedWorkerLauncher&) = delete;

 private:
  std::vector<std::string> previous_;
};

}  // namespace moesweep
