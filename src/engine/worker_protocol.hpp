#pragma once
// The engine worker's protocol: one JSON object per line each way, over the
// worker's stdin (requests) and stdout (events, then one reply per request).
//
//   -> {"op":"hello","protocol":1}
//   <- {"ok":true,"protocol":1,"engine":{...EngineFacts}}
//   -> {"op":"decode","ctx":1,"tokens":[...],"pos0":0,"chunk":512}
//   <- {"event":"routing","layer":3,"n_tokens":1,"n_used":8,"ids":[...]}   (only when traced)
//   <- {"ok":true,"seconds":0.0123}
//   -> {"op":"threads","ctx":1,"threads":{...ThreadSettings}}
//   <- {"ok":true,"n_threads":4,"n_threads_batch":4}        (what the engine holds now)
//   <- {"ok":false,"error":"...","kind":"engine"|"input"}                  (any request)
//
// What the engine applied (its context reply's n_ctx, n_batch and n_ubatch,
// the threads reply's counts) is read where the worker reports it: a worker
// of an older build that does not is "not reported", never the planned value
// (engine/applied_settings.hpp).
//
// Timing happens in the worker around the engine calls only: the pipe's
// latency is never inside a measured second. The version changes whenever a
// request or reply changes meaning; both sides refuse another version.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/applied_settings.hpp"
#include "engine/engine_types.hpp"

namespace moesweep::worker_protocol {

inline constexpr int kVersion = 1;
// No line of the protocol is longer (routing events of one micro-batch and
// the tokens of one fill are far below it); a longer one is a broken peer.
inline constexpr size_t kMaxLineBytes = size_t{64} << 20;
// Token ids and positions are int32 in the engine.
inline constexpr int64_t kMaxTokens = int64_t{1} << 24;

// A request or reply that breaks the protocol (wrong type, out of range,
// missing field): names the field and what it should have been. Seen from
// moesweep it is the engine's failure: the sweep fails those points and goes
// on, as for any EngineError.
class ProtocolError : public EngineError {
 public:
  using EngineError::EngineError;
};

// Typed access with ranges; `what` names the message in errors.
int64_t int_field(const nlohmann::json& j, std::string_view key, int64_t lo, int64_t hi,
                  std::string_view what);
std::string string_field(const nlohmann::json& j, std::string_view key, std::string_view what,
                         size_t max_bytes = 1 << 16);
bool bool_field(const nlohmann::json& j, std::string_view key, std::string_view what);
double number_field(const nlohmann::json& j, std::string_view key, std::string_view what);

nlohmann::json to_json(const EngineKnobs& k);
// A load or context request's "knobs" (absent: none set).
EngineKnobs knobs_from(const nlohmann::json& request, const char* what);
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

// --- The requests as the worker reads them (fuzz/fuzz_worker_request.cpp) ---
// Each reader takes a request of one "op" (a JSON object, parse_line's) and
// throws ProtocolError naming the request, the field and what it should have
// been; the worker answers any such error with {"ok":false,"kind":"engine"}.

// "op": at most 32 bytes.
std::string request_op(const nlohmann::json& req);
// "ctx" of a request on a context (threads, decode, rewind, cached, free).
int request_ctx(const nlohmann::json& req, std::string_view what);
// load: its "model".
ModelLoadParams load_request_from(const nlohmann::json& req);
struct ContextRequest {
  bool routing = false;  // send the decode's routing as events
  ContextParams params;
};
ContextRequest context_request_from(const nlohmann::json& req);
// threads: its "threads".
ThreadSettings threads_request_from(const nlohmann::json& req);
struct DecodeRequest {
  int ctx = 0;
  std::vector<int32_t> tokens;  // ids >= 0, at most kMaxTokens of them
  int pos0 = 0;
  int chunk = 1;
};
DecodeRequest decode_request_from(const nlohmann::json& req);
int rewind_request_from(const nlohmann::json& req);  // its "n_kv"
struct QuantizeRequest {
  std::string in, out;
  int ftype = 0;          // the engine's llama_ftype
  int64_t n_threads = 0;  // 0: the machine's
};
QuantizeRequest quantize_request_from(const nlohmann::json& req);
struct ExpertGemvRequest {
  ExpertGemvShape shape;
  int64_t experts = 1;
  int threads = 1;
  double seconds = 0;
};
ExpertGemvRequest expert_gemv_request_from(const nlohmann::json& req);

// --- The worker's replies as moesweep reads them (fuzz/fuzz_worker_reply.cpp) ---
// Each reader takes the reply of one request kind and throws ProtocolError
// naming the reply, the field and what it should have been.

// Any reply: returns when it says {"ok":true}. {"ok":false}: UserError for
// kind "input" (the worker's expected and fix), else EngineError with the
// worker's error; no boolean "ok": EngineError.
void check_reply(const nlohmann::json& reply);
// hello: the engine's facts. UserError when the worker refuses to run here
// (kind "input", its reason); ProtocolError for another protocol version.
EngineFacts hello_reply_from(const nlohmann::json& reply);

struct LoadReply {
  ModelFacts facts;
  std::string engine_log;  // the engine's INFO lines of the load
};
LoadReply load_reply_from(const nlohmann::json& reply);

struct ContextReply {
  int ctx = 0;                    // the worker's id of the context
  int n_ctx = 0;                  // what the engine made of the asked n_ctx
  int n_batch = 0, n_ubatch = 0;  // what it made of those (0: not reported)
  std::string engine_log;
};
ContextReply context_reply_from(const nlohmann::json& reply);
// threads: the thread counts the engine holds now (0: not reported).
AppliedThreads threads_reply_from(const nlohmann::json& reply);

// decode: the seconds the engine took, in (0, 1e9] (EngineError otherwise).
double decode_reply_from(const nlohmann::json& reply);
int cached_reply_from(const nlohmann::json& reply);            // tokens in the KV cache
std::string quantize_reply_from(const nlohmann::json& reply);  // the engine's log
// expert_gemv: the point (its threads are the request's, not the reply's).
ExpertGemvPoint expert_gemv_reply_from(const nlohmann::json& reply);

// A line before the reply of a traced decode: a decode call, or the experts
// one MoE layer selected (ids[t * n_used + k], n_tokens x n_used of them).
struct WorkerEvent {
  bool routing = false;  // false: a decode event
  int n_tokens = 0;
  bool generation = false;  // decode events
  int layer = 0, n_used = 0;
  std::vector<int32_t> ids;
};
WorkerEvent event_from(const nlohmann::json& event);

}  // namespace moesweep::worker_protocol
