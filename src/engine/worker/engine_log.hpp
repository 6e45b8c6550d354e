#pragma once
// The engine logs every tensor at INFO; our tables must not drown in it.
// Default: warnings and errors only, to stderr. MOESWEEP_ENGINE_LOG=info|debug
// brings the rest back.
#include <string>

namespace moesweep::worker {

// Installs the filter (idempotent). In the worker, stderr is a pipe that
// moesweep forwards to its own stderr and keeps the tail of for crash records.
void install_engine_log();

// While one is alive, the engine's warnings are kept here instead of going to
// the terminal (errors still print too): a twin's quantization warns once per
// tensor whose row is not a multiple of the quant's block, which says nothing
// a user can act on; the caller writes them to a log and summarizes.
// With kInfo it keeps the engine's INFO lines instead (its buffer sizes,
// engine_memory.hpp) and leaves warnings and errors printing as usual; INFO
// still prints only when MOESWEEP_ENGINE_LOG asks for it.
class EngineLogCapture {
 public:
  enum class Level { kWarnings, kInfo };
  explicit EngineLogCapture(Level level = Level::kWarnings);
  ~EngineLogCapture();
  EngineLogCapture(const EngineLogCapture&) = delete;
  EngineLogCapture& operator=(const EngineLogCapture&) = delete;
  std::string text() const;  // what was captured so far

 private:
  bool owner_ = false;  // a nested capture shares the outer one's buffer
};

}  // namespace moesweep::worker
