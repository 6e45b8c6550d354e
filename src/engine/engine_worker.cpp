#include "engine/engine_worker.hpp"

#include <fmt/format.h>

#include "engine/worker_protocol.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace wp = worker_protocol;

namespace {
constexpr double kHelloDeadlineS = 60;  // a worker answers hello before it loads anything
}  // namespace

EngineWorker::EngineWorker(const std::filesystem::path& binary, const std::atomic<bool>* stop)
    : process_(binary, stop) {
  // Hello has a deadline: a program that is not a worker must not hang us.
  nlohmann::json reply;
  try {
    reply = process_.request(wp::encode(wp::HelloRequest{}),
                             {kHelloDeadlineS, "the deadline of a worker's hello"});
  } catch (const EngineCrash& e) {
    std::string tail;
    for (const std::string& line : e.log_tail()) tail += "\n    " + line;
    throw UserError(fmt::format("'{}' did not answer as an engine worker: {}{}", binary.string(),
                                e.what(), tail),
                    "a moesweep-worker binary of this moesweep build",
                    "rebuild with scripts/setup, or re-register the engine (moesweep engine add)");
  }
  try {
    facts_ = wp::hello_reply_from(reply);
  } catch (const UserError&) {
    throw;  // the worker's own reason why it cannot run here
  } catch (const std::exception& e) {
    throw UserError(
        fmt::format("the engine worker '{}' speaks protocol {} (this moesweep speaks {}): {}",
                    binary.string(), reply.value("protocol", nlohmann::json()).dump(), wp::kVersion,
                    e.what()),
        fmt::format("a worker of protocol version {}", wp::kVersion),
        "build the worker again with this moesweep: scripts/setup for the default engine, "
        "`moesweep engine remove NAME` and `engine add` for a registered one (history, gate "
        "and bisect do that themselves for a release version); or use the moesweep it came "
        "with");
  }
  facts_.protocol = wp::kVersion;
  facts_.worker = binary.string();
}

nlohmann::json EngineWorker::call(const nlohmann::json& request, const CallDeadline& deadline,
                                  const WorkerProcess::EventSink& events) {
  nlohmann::json reply = process_.request(request, deadline, events);
  try {
    wp::check_reply(reply);
  } catch (const UserError& e) {  // the worker's "kind":"input": say whose and of what
    throw WorkerRefusal(
        fmt::format("the engine worker {} refused its {} request: {}", facts_.worker,
                    wp::op_of(request), e.problem()),
        e.expected().empty() ? std::string("a request this engine build accepts") : e.expected(),
        e.fix().empty() ? std::string("check the sweep's settings against this engine build "
                                      "(moesweep engine list), or leave the engine out")
                        : e.fix());
  }
  return reply;
}

}  // namespace moesweep
