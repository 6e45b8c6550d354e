#pragma once
// The engine worker's protocol: one JSON object per line each way, over the
// worker's stdin (requests) and stdout (events, then one reply per request).
//
//   -> {"op":"hello","protocol":1}
//   <- {"ok":true,"protocol":1,"engine":{...EngineFacts}}
//   -> {"op":"decode","ctx":1,"tokens":[...],"pos0":0,"chunk":512}
//   <- {"event":"routing","layer":3,"n_tokens":1,"n_used":8,"ids":[...]}   (only when traced)
//   <- {"ok":true,"seconds":0.0123}
//   <- {"ok":false,"error":"...","kind":"engine"|"input"}                  (any request)
//
// Timing happens in the worker around the engine calls only: the pipe's
// latency is never inside a measured second. The version changes whenever a
// request or reply changes meaning; both sides refuse another version.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "engine/engine_types.hpp"

namespace moesweep::worker_protocol {

inline constexpr int kVersion = 1;
// No line of the protocol is longer (routing events of one micro-batch and
// the tokens of one fill are far below it); a longer one is a broken peer.
inline constexpr size_t kMaxLineBytes = size_t{64} << 20;
// Token ids and positions are int32 in the engine.
inline constexpr int64_t kMaxTokens = int64_t{1} << 24;

// A request or reply that breaks the protocol (wrong type, out of range,
// missing field): names the field and what it should have been.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Typed access with ranges; `what` names the message in errors.
int64_t int_field(const nlohmann::json& j, std::string_view key, int64_t lo, int64_t hi,
                  std::string_view what);
std::string string_field(const nlohmann::json& j, std::string_view key, std::string_view what,
                         size_t max_bytes = 1 << 16);
bool bool_field(const nlohmann::json& j, std::string_view key, std::string_view what);
double number_field(const nlohmann::json& j, std::string_view key, std::string_view what);

nlohmann::json to_json(const ModelLoadParams& p);
ModelLoadParams load_params_from(const nlohmann::json& j);
nlohmann::json to_json(const ModelFacts& f);
ModelFacts model_facts_from(const nlohmann::json& j);
nlohmann::json to_json(const ContextParams& p);
ContextParams context_params_from(const nlohmann::json& j);
nlohmann::json to_json(const ThreadSettings& t);
ThreadSettings thread_settings_from(const nlohmann::json& j);
nlohmann::json to_json(const EngineFacts& f);
EngineFacts engine_facts_from(const nlohmann::json& j);

// A line to a value: ProtocolError when it is not one JSON object.
nlohmann::json parse_line(std::string_view line, std::string_view what);

}  // namespace moesweep::worker_protocol
