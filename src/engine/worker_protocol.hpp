#pragma once
// The engine worker's protocol: one JSON object per line each way, over the
// worker's stdin (requests) and stdout (events, then one reply per request).
//
//   -> {"op":"hello","protocol":2}
//   <- {"ok":true,"protocol":2,"engine":{...EngineFacts}}
//   -> {"op":"decode","ctx":1,"tokens":[...],"pos0":0,"chunk":1,"token_times":true,"routing":false}
//   <- {"event":"routing","layer":3,"n_tokens":1,"n_used":8,"ids":[...]}   (only when traced)
//   <- {"ok":true,"seconds":0.0123,"token_ns":[...],"inputs":"<fnv1a-64 hex>"}
//   -> {"op":"threads","ctx":1,"threads":{...ThreadSettings}}
//   <- {"ok":true,"n_threads":4,"n_threads_batch":4}        (what the engine holds now)
//   <- {"ok":false,"error":"...","kind":"engine"|"input"}                  (any request)
//
// Every message is one struct below, and its fields are one table of rows
// (engine/wire_rows.hpp) in worker_protocol.cpp: moesweep writes requests and
// reads replies, the worker reads requests and writes replies, all through
// encode() and decode(), so no field is spelled twice. decode() checks every
// field's type and range and throws a ProtocolError naming the message and
// the field (fuzz/fuzz_worker_request.cpp, fuzz/fuzz_worker_reply.cpp).
//
// What the engine applied (its context reply's n_ctx, n_batch and n_ubatch,
// the threads reply's counts) is read where the worker reports it: a worker
// of an older build that does not is "not reported", never the planned value
// (engine/applied_settings.hpp).
//
// Timing happens in the worker around the engine calls only: the pipe's
// latency is never inside a measured second. The version changes whenever a
// request or reply changes meaning; both sides refuse another version.
// Version 2 (issue 46): a decode may ask for each generated token's time
// ("token_times") and say whether a traced context's routing tap records it
// ("routing": false keeps the tap from splitting the graph); the reply gives
// the times ("token_ns") and a hash of the tokens and positions the engine's
// batches held ("inputs"), so two decodes can be shown to be of one sequence.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/applied_settings.hpp"
#include "engine/engine_types.hpp"
#include "engine/wire_rows.hpp"

namespace moesweep::worker_protocol {

inline constexpr int kVersion = 2;
// No line of the protocol is longer (routing events of one micro-batch and
// the tokens of one fill are far below it); a longer one is a broken peer.
inline constexpr size_t kMaxLineBytes = size_t{64} << 20;
// Token ids and positions are int32 in the engine.
inline constexpr int64_t kMaxTokens = int64_t{1} << 24;

// A line to a value: ProtocolError when it is not one JSON object.
nlohmann::json parse_line(std::string_view line, std::string_view what);

// A message read as `S` (S::kWhat names it in errors), then S's own check of
// its fields together where it has one.
template <typename S>
S decode(const nlohmann::json& j) {
  S s = decode<S>(j, S::kWhat);
  if constexpr (requires { s.check(); }) s.check();
  return s;
}

// --- Requests (moesweep writes, the worker reads) ----------------------------
// Each starts with its "op" (at most 32 bytes), which the worker dispatches on.
std::string request_op(const nlohmann::json& req);
// The "op" of a request we wrote, for messages ("a request" when it has none).
std::string op_of(const nlohmann::json& req);

struct HelloRequest {
  static constexpr const char* kWhat = "hello request";
  int protocol = kVersion;
  static const WireRows<HelloRequest>& rows();
};
struct LoadRequest {
  static constexpr const char* kWhat = "load request";
  ModelLoadParams model;
  static const WireRows<LoadRequest>& rows();
};
struct ContextRequest {
  static constexpr const char* kWhat = "context request";
  bool routing = false;  // send the decode's routing as events
  ContextParams params;
  static const WireRows<ContextRequest>& rows();
};
// A request on one context and nothing else: free, cached.
struct FreeRequest {
  static constexpr const char* kWhat = "free request";
  int ctx = 0;
  static const WireRows<FreeRequest>& rows();
};
struct CachedRequest {
  static constexpr const char* kWhat = "cached request";
  int ctx = 0;
  static const WireRows<CachedRequest>& rows();
};
struct ThreadsRequest {
  static constexpr const char* kWhat = "threads request";
  int ctx = 0;
  ThreadSettings threads;
  static const WireRows<ThreadsRequest>& rows();
};
struct DecodeRequest {
  static constexpr const char* kWhat = "decode request";
  int ctx = 0;
  std::vector<int32_t> tokens;  // ids >= 0, at most kMaxTokens of them
  int pos0 = 0;
  int chunk = 1;
  bool token_times = false;  // time each token of a generation (chunk 1) decode
  bool routing = true;       // a traced context's tap records this decode (absent: it does)
  static const WireRows<DecodeRequest>& rows();
};
struct RewindRequest {
  static constexpr const char* kWhat = "rewind request";
  int ctx = 0;
  int n_kv = 0;
  static const WireRows<RewindRequest>& rows();
};
struct QuantizeRequest {
  static constexpr const char* kWhat = "quantize request";
  std::string in, out;
  int ftype = 0;          // the engine's llama_ftype
  int64_t n_threads = 0;  // 0: the machine's
  static const WireRows<QuantizeRequest>& rows();
};
struct ExpertGemvRequest {
  static constexpr const char* kWhat = "expert_gemv request";
  ExpertGemvShape shape;  // its fields at the top level
  int64_t experts = 1;
  int threads = 1;
  int64_t millis = 1;  // how long to measure, in milliseconds (as on the wire)
  static const WireRows<ExpertGemvRequest>& rows();
};

// --- Replies (the worker writes, moesweep reads) -----------------------------

// Any reply: returns when it says {"ok":true}. {"ok":false}: UserError for
// kind "input" (the worker's expected and fix), else EngineError with the
// worker's error; no boolean "ok": EngineError.
void check_reply(const nlohmann::json& reply);

// {"ok":false}: what the worker answers a request it could not carry out.
struct ErrorReply {
  static constexpr const char* kWhat = "error reply";
  std::string kind;  // "input" (the user's to fix: expected and fix say how) or "engine"
  std::string error, expected, fix;
  static const WireRows<ErrorReply>& rows();
};
// {"ok":true} and nothing else: free, rewind.
struct OkReply {
  static constexpr const char* kWhat = "reply";
  static const WireRows<OkReply>& rows();
};
struct HelloReply {
  static constexpr const char* kWhat = "the worker's hello";
  int protocol = 0;
  EngineFacts engine;
  static const WireRows<HelloReply>& rows();
};
// hello: the engine's facts. UserError when the worker refuses to run here
// (kind "input", its reason); ProtocolError for another protocol version.
EngineFacts hello_reply_from(const nlohmann::json& reply);

struct LoadReply {
  static constexpr const char* kWhat = "load reply";
  ModelFacts facts;
  std::string engine_log;  // the engine's INFO lines of the load
  static const WireRows<LoadReply>& rows();
};
struct ContextReply {
  static constexpr const char* kWhat = "context reply";
  int ctx = 0;                    // the worker's id of the context
  int n_ctx = 0;                  // what the engine made of the asked n_ctx
  int n_batch = 0, n_ubatch = 0;  // what it made of those (0: not reported)
  std::string engine_log;
  static const WireRows<ContextReply>& rows();
};
// threads: the thread counts the engine holds now (0: not reported).
struct ThreadsReply {
  static constexpr const char* kWhat = "threads reply";
  AppliedThreads applied;  // n_threads, n_threads_batch at the top level
  static const WireRows<ThreadsReply>& rows();
};
// decode: the seconds the engine took, in (0, 1e9] (the check); with
// token_times, each token's nanoseconds (as many as tokens, summing to no
// more than the seconds: the caller checks against its request).
struct DecodeReply {
  static constexpr const char* kWhat = "decode reply";
  double seconds = 0;
  std::vector<int64_t> token_ns;
  std::string inputs;  // FNV-1a 64 of the (token, position) pairs decoded, 16 hex digits
  void check() const;
  static const WireRows<DecodeReply>& rows();
};
struct CachedReply {
  static constexpr const char* kWhat = "cached reply";
  int n = 0;  // tokens in the KV cache
  static const WireRows<CachedReply>& rows();
};
struct QuantizeReply {
  static constexpr const char* kWhat = "quantize reply";
  std::string log;  // the engine's
  static const WireRows<QuantizeReply>& rows();
};
// expert_gemv: the point (its threads are the request's, not the reply's).
struct ExpertGemvReply {
  static constexpr const char* kWhat = "expert_gemv reply";
  ExpertGemvPoint point;  // its fields but threads, at the top level
  static const WireRows<ExpertGemvReply>& rows();
};

// --- Events: lines before the reply of a traced decode -----------------------

// A decode call of the engine.
struct DecodeEvent {
  static constexpr const char* kWhat = "a decode event";
  int n_tokens = 0;
  bool generation = false;
  static const WireRows<DecodeEvent>& rows();
};
// The experts one MoE layer selected: ids[t * n_used + k], n_tokens x n_used.
struct RoutingEvent {
  static constexpr const char* kWhat = "a routing event";
  int layer = 0, n_tokens = 0, n_used = 0;
  std::vector<int32_t> ids;
  void check() const;  // n_tokens x n_used ids
  static const WireRows<RoutingEvent>& rows();
};
// Either event, by its "event".
struct WorkerEvent {
  bool routing = false;  // false: `decode` holds it
  DecodeEvent decode;
  RoutingEvent route;
};
WorkerEvent event_from(const nlohmann::json& event);
// Whether a line from the worker is an event (else it is the reply).
bool is_event(const nlohmann::json& line);

}  // namespace moesweep::worker_protocol
