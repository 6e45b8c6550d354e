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
  // `stop`: WorkerProcess's (null: the process's Ctrl-C flag).
  explicit EngineWorker(const std::filesystem::path& binary,
                        const std::atomic<bool>* stop = nullptr);

  const EngineFacts& facts() const { return facts_; }
  int pid() const { return process_.pid(); }
  // One request; a reply {"ok":false} becomes WorkerRefusal (kind "input",
  // naming the request and the worker) or EngineError (kind "engine"); a dead or
  // hung worker EngineCrash; a call the stop flag ended WorkerInterrupted.
  nlohmann::json call(const nlohmann::json& request, const CallDeadline& deadline,
                      const WorkerProcess::EventSink& events = {});

 private:
  WorkerProcess process_;
  EngineFacts facts_;
};

}  // namespace moesweep
