#pragma once
// MemoryWatch: the memory facts of every point of one model group, gathered
// from the engine's process (by PID: the engine worker's)
// and the engine's own figures (engine/engine_memory.hpp): MemAvailable
// around the model load, the engine's model/KV/compute buffers, the model
// file's mapped and resident bytes, and the peak RSS of each context.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "engine/engine_memory.hpp"
#include "results/record.hpp"

namespace moesweep {

class MemoryWatch {
 public:
  explicit MemoryWatch(pid_t engine_pid, std::filesystem::path proc = "/proc");
  // The engine's process: a worker that was restarted is another one.
  void set_engine_pid(pid_t engine_pid) { pid_ = engine_pid; }
  void before_load();  // MemAvailable
  // MemAvailable again; the engine's model buffers (the text it logged while loading).
  void after_load(const std::filesystem::path& model_file, const EngineMemoryFigures& engine);
  // The engine's KV and compute buffers (logged while creating the context)
  // beside the KV size expected from the model's shape; resets the peak RSS
  // so each context's peak is its own.
  void context_created(const EngineMemoryFigures& engine, uint64_t kv_expected);
  // Every fact, with the peak RSS, the file's resident bytes and the rollup now.
  MemoryFacts after_point() const;

 private:
  pid_t pid_;
  std::filesystem::path proc_;
  std::filesystem::path model_file_;
  MemoryFacts base_;  // the load's and the context's facts
};

}  // namespace moesweep
