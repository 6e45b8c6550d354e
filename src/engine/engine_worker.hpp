#pragma once
// A started worker that answered hello with our protocol version: requests
// with the protocol's error replies turned into our exceptions.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/engine_types.hpp"
#include "engine/worker_process.hpp"

namespace moesweep {

class EngineWorker {
 public:
  // Starts `binary` and checks its hello. UserError when it is no worker of
  // this protocol version (another build of moesweep, another program).
  explicit EngineWorker(const std::filesystem::path& binary);

  const EngineFacts& facts() const { return facts_; }
  int pid() const { return process_.pid(); }
  // One request; a reply {"ok":false} becomes UserError (kind "input") or
  // EngineError (kind "engine"); a dead or hung worker EngineCrash.
  nlohmann::json call(const nlohmann::json& request, double timeout_s = 0,
                      const WorkerProcess::EventSink& events = {});

 private:
  WorkerProcess process_;
  EngineFacts facts_;
};

}  // namespace moesweep
