#include "engine/engine_worker.hpp"

#include <fmt/format.h>

#include "engine/worker_protocol.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {
std::string text_or_empty(const nlohmann::json& reply, const char* key) {
  const auto it = reply.find(key);
  return it != reply.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

namespace wp = worker_protocol;

EngineWorker::EngineWorker(const std::filesystem::path& binary) : process_(binary) {
  // Hello has a deadline: a program that is not a worker must not hang us.
  nlohmann::json reply;
  try {
    reply = process_.request({{"op", "hello"}, {"protocol", wp::kVersion}}, 60);
  } catch (const EngineCrash& e) {
    std::string tail;
    for (const std::string& line : e.log_tail()) tail += "\n    " + line;
    throw UserError(fmt::format("'{}' did not answer as an engine worker: {}{}", binary.string(),
                                e.what(), tail),
                    "a moesweep-worker binary of this moesweep build",
                    "rebuild with scripts/setup, or re-register the engine (moesweep engine add)");
  }
  // A worker that speaks our protocol but cannot run here (no CPU backend for
  // this CPU, another engine release behind the library name) says why itself.
  if (reply.is_object() && reply.value("ok", nlohmann::json()) == false &&
      text_or_empty(reply, "kind") == "input" && !text_or_empty(reply, "error").empty())
    throw UserError(reply["error"].get<std::string>(), text_or_empty(reply, "expected"),
                    text_or_empty(reply, "fix"));
  try {
    if (!reply.value("ok", false)) throw wp::ProtocolError(reply.value("error", reply.dump()));
    facts_ =
        wp::engine_facts_from(wp::int_field(reply, "protocol", 0, 1 << 30, "hello") == wp::kVersion
                                  ? reply.at("engine")
                                  : nlohmann::json{{"protocol", reply["protocol"]}});
  } catch (const std::exception& e) {
    throw UserError(
        fmt::format("the engine worker '{}' speaks protocol {} (this moesweep speaks {}): {}",
                    binary.string(), reply.value("protocol", nlohmann::json()).dump(), wp::kVersion,
                    e.what()),
        fmt::format("a worker of protocol version {}", wp::kVersion),
        "rebuild the worker with this moesweep (scripts/setup), or use the moesweep it came with");
  }
  facts_.protocol = wp::kVersion;
  facts_.worker = binary.string();
}

nlohmann::json EngineWorker::call(const nlohmann::json& request, double timeout_s,
                                  const WorkerProcess::EventSink& events) {
  nlohmann::json reply = process_.request(request, timeout_s, events);
  const auto ok = reply.find("ok");
  if (ok == reply.end() || !ok->is_boolean())
    throw EngineError(
        fmt::format("the engine worker answered '{}' without \"ok\"", reply.dump().substr(0, 200)));
  if (ok->get<bool>()) return reply;
  std::string error = text_or_empty(reply, "error");
  if (error.empty()) error = "(the worker gave no reason)";
  if (text_or_empty(reply, "kind") == "input")
    throw UserError(error, text_or_empty(reply, "expected"), text_or_empty(reply, "fix"));
  throw EngineError(error);
}

}  // namespace moesweep
