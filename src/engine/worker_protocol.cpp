#include "engine/worker_protocol.hpp"

#include <fmt/format.h>

#include <limits>

#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep::worker_protocol {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxThreads = 1 << 20;
constexpr int64_t kMaxContextId = 1 << 30;
constexpr size_t kMaxText = size_t{1} << 16;  // paths, descriptions
constexpr size_t kMaxName = 32;               // load modes, cache types, ops
constexpr size_t kMaxLog = size_t{1} << 20;   // an engine log of a load or a context
constexpr auto kOptional = Presence::kOptional;
constexpr const char* kOpKey = "op";        // what a request asks
constexpr const char* kEventKey = "event";  // an event's kind; replies have none

// --- The engine's own structs, as parts of messages ---

const WireRows<EngineKnobs>& knob_rows() {
  static const WireRows<EngineKnobs> rows = {
      int_row("fused_moe", &EngineKnobs::fused_moe, -1, 1),
      int_row("repack", &EngineKnobs::repack, -1, 1),
      int_row("mla", &EngineKnobs::mla, -1, 3),
      int_row("attn_max_batch", &EngineKnobs::attn_max_batch, -1, kIntMax),
  };
  return rows;
}

const WireRows<ModelLoadParams>& load_param_rows() {
  static const WireRows<ModelLoadParams> rows = {
      text_row("path", &ModelLoadParams::path, kMaxText),
      text_row("load_mode", &ModelLoadParams::load_mode, kMaxName),
      int_row("n_gpu_layers", &ModelLoadParams::n_gpu_layers, -1, kIntMax),
      texts_row("tensor_overrides", &ModelLoadParams::tensor_overrides, 4096, 4096),
      int_row("n_cpu_moe", &ModelLoadParams::n_cpu_moe, 0, 4096),
      text_row("numa", &ModelLoadParams::numa, kMaxName),
      // Absent: a client of a build without ik_llama.cpp's switches (none set).
      object_row("knobs", &ModelLoadParams::knobs, knob_rows, kOptional),
  };
  return rows;
}

const WireRows<ModelFacts>& model_fact_rows() {
  static const WireRows<ModelFacts> rows = {
      text_row("path", &ModelFacts::path, kMaxText),
      text_row("description", &ModelFacts::description, kMaxText),
      text_row("arch", &ModelFacts::arch, kMaxText),
      text_row("file_type", &ModelFacts::file_type, kMaxText),
      int_row("size_bytes", &ModelFacts::size_bytes, 0, kI64Max),
      int_row("n_params", &ModelFacts::n_params, 0, kI64Max),
      int_row("n_layer", &ModelFacts::n_layer, 0, kIntMax),
      int_row("n_vocab", &ModelFacts::n_vocab, 1, kIntMax),
      int_row("n_ctx_train", &ModelFacts::n_ctx_train, 0, kIntMax),
  };
  return rows;
}

const WireRows<ContextParams>& context_param_rows() {
  static const WireRows<ContextParams> rows = {
      int_row("n_ctx", &ContextParams::n_ctx, 1, kMaxTokens),
      int_row("n_batch", &ContextParams::n_batch, 1, kMaxTokens),
      int_row("n_ubatch", &ContextParams::n_ubatch, 1, kMaxTokens),
      text_row("type_k", &ContextParams::type_k, kMaxName),
      text_row("type_v", &ContextParams::type_v, kMaxName),
      int_row("flash_attn", &ContextParams::flash_attn, -1, 1),
      object_row("knobs", &ContextParams::knobs, knob_rows, kOptional),
  };
  return rows;
}

const WireRows<ThreadSettings>& thread_setting_rows() {
  static const WireRows<ThreadSettings> rows = {
      int_row("n_threads", &ThreadSettings::n_threads, 1, kIntMax),
      int_row("n_threads_batch", &ThreadSettings::n_threads_batch, 1, kIntMax),
      text_row("cpu_mask", &ThreadSettings::cpu_mask, 4096),
      flag_row("strict", &ThreadSettings::strict),
      int_row("poll", &ThreadSettings::poll, 0, 100),
  };
  return rows;
}

const WireRows<EngineFacts>& engine_fact_rows() {
  static const WireRows<EngineFacts> rows = {
      int_row("protocol", &EngineFacts::protocol, 0, kIntMax),
      text_row("kind", &EngineFacts::kind, 64),
      text_row("release", &EngineFacts::release, 64),
      text_row("commit", &EngineFacts::commit, 64),
      text_row("build", &EngineFacts::build, 256),
      text_row("cpu_variant", &EngineFacts::cpu_variant, 64),
      text_row("library", &EngineFacts::library, 4096),
      texts_row("cpu_features", &EngineFacts::cpu_features, 4096, 4096),
      text_row("system_info", &EngineFacts::system_info, 4096),
      text_row("worker", &EngineFacts::worker, 4096, kOptional),
      text_row("api", &EngineFacts::api, 1024, kOptional),
      texts_row("reads", &EngineFacts::reads, 64, 64, kOptional),
      int_row("max_experts", &EngineFacts::max_experts, 0, 1 << 20, kOptional),
  };
  return rows;
}

const WireRows<ExpertGemvShape>& gemv_shape_rows() {
  static const WireRows<ExpertGemvShape> rows = {
      text_row("type", &ExpertGemvShape::type, kMaxName),
      int_row("hidden", &ExpertGemvShape::hidden, 1, 1 << 20),
      int_row("rows", &ExpertGemvShape::rows, 1, 1 << 20),
      int_row("used", &ExpertGemvShape::used, 1, 1024),
      int_row("layers", &ExpertGemvShape::layers, 1, 1024),
  };
  return rows;
}

// Its threads are the request's, not on the wire.
const WireRows<ExpertGemvPoint>& gemv_point_rows() {
  static const WireRows<ExpertGemvPoint> rows = {
      int_row("pool_bytes", &ExpertGemvPoint::pool_bytes, 0, kI64Max),
      int_row("expert_bytes", &ExpertGemvPoint::expert_bytes, 0, kI64Max),
      number_row("gbps", &ExpertGemvPoint::gbps, 0, 1e12),
      number_row("tokens_per_s", &ExpertGemvPoint::tokens_per_s, 0, 1e15),
  };
  return rows;
}

// Absent: a worker of an older build that does not report them.
const WireRows<AppliedThreads>& applied_thread_rows() {
  static const WireRows<AppliedThreads> rows = {
      int_row("n_threads", &AppliedThreads::n_threads, 1, kMaxThreads, kOptional),
      int_row("n_threads_batch", &AppliedThreads::n_threads_batch, 1, kMaxThreads, kOptional),
  };
  return rows;
}

template <typename S>
WireRow<S> op_row(const char* op) {
  return constant_row<S>(kOpKey, op);
}
template <typename S>
WireRow<S> ok_row() {
  return constant_row<S>("ok", true);
}
template <typename S>
WireRow<S> ctx_row(int S::*m) {
  return int_row("ctx", m, 1, kMaxContextId);
}
template <typename S>
WireRows<S> joined(const WireRows<S>& head, const WireRows<S>& tail) {
  return head.joined(tail);
}

JsonFields message_fields(const nlohmann::json& j, const char* what) {
  return JsonFields(j, what, "", raise_protocol_error);
}

// A required text field read outside a message table ("op", "event").
std::string tag(const nlohmann::json& j, const char* key, const char* what) {
  const JsonFields f = message_fields(j, what);
  if (!f.has(key)) f.fail(key, "present");
  return read_text(f, key, kMaxName);
}

}  // namespace

// --- Requests ---

const WireRows<HelloRequest>& HelloRequest::rows() {
  static const WireRows<HelloRequest> rows = {
      op_row<HelloRequest>("hello"), int_row("protocol", &HelloRequest::protocol, 0, kIntMax)};
  return rows;
}
const WireRows<LoadRequest>& LoadRequest::rows() {
  static const WireRows<LoadRequest> rows = {
      op_row<LoadRequest>("load"), object_row("model", &LoadRequest::model, load_param_rows)};
  return rows;
}
const WireRows<ContextRequest>& ContextRequest::rows() {
  static const WireRows<ContextRequest> rows = {
      op_row<ContextRequest>("context"), flag_row("routing", &ContextRequest::routing),
      object_row("context", &ContextRequest::params, context_param_rows)};
  return rows;
}
const WireRows<FreeRequest>& FreeRequest::rows() {
  static const WireRows<FreeRequest> rows = {op_row<FreeRequest>("free"),
                                             ctx_row(&FreeRequest::ctx)};
  return rows;
}
const WireRows<CachedRequest>& CachedRequest::rows() {
  static const WireRows<CachedRequest> rows = {op_row<CachedRequest>("cached"),
                                               ctx_row(&CachedRequest::ctx)};
  return rows;
}
const WireRows<ThreadsRequest>& ThreadsRequest::rows() {
  static const WireRows<ThreadsRequest> rows = {
      op_row<ThreadsRequest>("threads"), ctx_row(&ThreadsRequest::ctx),
      object_row("threads", &ThreadsRequest::threads, thread_setting_rows)};
  return rows;
}
const WireRows<DecodeRequest>& DecodeRequest::rows() {
  static const WireRows<DecodeRequest> rows = {
      op_row<DecodeRequest>("decode"),
      ctx_row(&DecodeRequest::ctx),
      ids_row("tokens", &DecodeRequest::tokens, 0, int64_t{1} << 31, size_t(kMaxTokens)),
      int_row("pos0", &DecodeRequest::pos0, 0, kMaxTokens),
      int_row("chunk", &DecodeRequest::chunk, 1, kMaxTokens),
      flag_row("token_times", &DecodeRequest::token_times, kOptional),
      flag_row("routing", &DecodeRequest::routing, kOptional)};
  return rows;
}
const WireRows<RewindRequest>& RewindRequest::rows() {
  static const WireRows<RewindRequest> rows = {
      op_row<RewindRequest>("rewind"), ctx_row(&RewindRequest::ctx),
      int_row("n_kv", &RewindRequest::n_kv, 0, kMaxTokens)};
  return rows;
}
const WireRows<QuantizeRequest>& QuantizeRequest::rows() {
  static const WireRows<QuantizeRequest> rows = {
      op_row<QuantizeRequest>("quantize"), text_row("in", &QuantizeRequest::in, 4096),
      text_row("out", &QuantizeRequest::out, 4096),
      int_row("ftype", &QuantizeRequest::ftype, 0, 1023),
      int_row("n_threads", &QuantizeRequest::n_threads, 0, 4096)};
  return rows;
}
const WireRows<ExpertGemvRequest>& ExpertGemvRequest::rows() {
  static const WireRows<ExpertGemvRequest> rows =
      joined(joined({op_row<ExpertGemvRequest>("expert_gemv")},
                    lifted_rows(&ExpertGemvRequest::shape, gemv_shape_rows())),
             {int_row("experts", &ExpertGemvRequest::experts, 1, 1 << 20),
              int_row("threads", &ExpertGemvRequest::threads, 1, 4096),
              int_row("millis", &ExpertGemvRequest::millis, 1, 600000)});
  return rows;
}

std::string request_op(const nlohmann::json& req) {
  return tag(req, kOpKey, "request");
}

std::string op_of(const nlohmann::json& req) {
  try {
    return request_op(req);
  } catch (const ProtocolError&) {
    return "a request";
  }
}

// --- Replies ---

const WireRows<ErrorReply>& ErrorReply::rows() {
  static const WireRows<ErrorReply> rows = {
      constant_row<ErrorReply>("ok", false), text_row("kind", &ErrorReply::kind, kMaxName),
      text_row("error", &ErrorReply::error, kMaxLog),
      text_row("expected", &ErrorReply::expected, kMaxText, kOptional),
      text_row("fix", &ErrorReply::fix, kMaxText, kOptional)};
  return rows;
}
const WireRows<OkReply>& OkReply::rows() {
  static const WireRows<OkReply> rows = {ok_row<OkReply>()};
  return rows;
}
const WireRows<HelloReply>& HelloReply::rows() {
  static const WireRows<HelloReply> rows = {
      ok_row<HelloReply>(), int_row("protocol", &HelloReply::protocol, 0, kMaxContextId),
      object_row("engine", &HelloReply::engine, engine_fact_rows)};
  return rows;
}
const WireRows<LoadReply>& LoadReply::rows() {
  static const WireRows<LoadReply> rows = {ok_row<LoadReply>(),
                                           object_row("facts", &LoadReply::facts, model_fact_rows),
                                           text_row("engine_log", &LoadReply::engine_log, kMaxLog)};
  return rows;
}
const WireRows<ContextReply>& ContextReply::rows() {
  static const WireRows<ContextReply> rows = {
      ok_row<ContextReply>(),
      ctx_row(&ContextReply::ctx),
      int_row("n_ctx", &ContextReply::n_ctx, 1, kMaxTokens),
      int_row("n_batch", &ContextReply::n_batch, 1, kMaxTokens, kOptional),
      int_row("n_ubatch", &ContextReply::n_ubatch, 1, kMaxTokens, kOptional),
      text_row("engine_log", &ContextReply::engine_log, kMaxLog)};
  return rows;
}
const WireRows<ThreadsReply>& ThreadsReply::rows() {
  static const WireRows<ThreadsReply> rows =
      joined({ok_row<ThreadsReply>()}, lifted_rows(&ThreadsReply::applied, applied_thread_rows()));
  return rows;
}
const WireRows<DecodeReply>& DecodeReply::rows() {
  static const WireRows<DecodeReply> rows = {
      ok_row<DecodeReply>(), number_row("seconds", &DecodeReply::seconds, 0, 1e9),
      counts_row("token_ns", &DecodeReply::token_ns, 1, int64_t{1} << 50, size_t(kMaxTokens),
                 kOptional),
      text_row("inputs", &DecodeReply::inputs, 16, kOptional)};
  return rows;
}
void DecodeReply::check() const {
  if (!(seconds > 0)) throw EngineError(fmt::format("the worker timed a decode at {} s", seconds));
}
const WireRows<CachedReply>& CachedReply::rows() {
  static const WireRows<CachedReply> rows = {ok_row<CachedReply>(),
                                             int_row("n", &CachedReply::n, 0, kMaxTokens)};
  return rows;
}
const WireRows<QuantizeReply>& QuantizeReply::rows() {
  static const WireRows<QuantizeReply> rows = {
      ok_row<QuantizeReply>(), text_row("log", &QuantizeReply::log, size_t{16} << 20)};
  return rows;
}
const WireRows<ExpertGemvReply>& ExpertGemvReply::rows() {
  static const WireRows<ExpertGemvReply> rows =
      joined({ok_row<ExpertGemvReply>()}, lifted_rows(&ExpertGemvReply::point, gemv_point_rows()));
  return rows;
}

void check_reply(const nlohmann::json& reply) {
  const auto ok = reply.is_object() ? reply.find("ok") : reply.end();
  if (ok == reply.end() || !ok->is_boolean())
    throw EngineError(
        fmt::format("the engine worker answered '{}' without \"ok\"", reply.dump().substr(0, 200)));
  if (ok->get<bool>()) return;
  // A refusal is read leniently: a worker that cannot say why still refused.
  ErrorReply e;
  try {
    e = decode<ErrorReply>(reply);
  } catch (const ProtocolError&) {
    e.error = reply.dump().substr(0, 200);
  }
  if (e.error.empty()) e.error = "(the worker gave no reason)";
  if (e.kind == "input") throw UserError(e.error, e.expected, e.fix);
  throw EngineError(e.error);
}

EngineFacts hello_reply_from(const nlohmann::json& reply) {
  // A worker that speaks our protocol but cannot run here (no CPU backend for
  // this CPU, another engine release behind the library name) says why itself.
  if (reply.is_object() && reply.value("ok", nlohmann::json()) == false) {
    try {
      check_reply(reply);
    } catch (const UserError&) {
      throw;
    } catch (const std::exception& e) {
      throw ProtocolError(e.what());
    }
  }
  const HelloReply r = decode<HelloReply>(reply);
  if (r.protocol != kVersion)
    throw ProtocolError(
        fmt::format("{}: protocol {} is not {}", HelloReply::kWhat, r.protocol, kVersion));
  return r.engine;
}

// --- Events ---

const WireRows<DecodeEvent>& DecodeEvent::rows() {
  static const WireRows<DecodeEvent> rows = {
      constant_row<DecodeEvent>(kEventKey, "decode"),
      int_row("n_tokens", &DecodeEvent::n_tokens, 0, kMaxTokens),
      flag_row("generation", &DecodeEvent::generation)};
  return rows;
}
const WireRows<RoutingEvent>& RoutingEvent::rows() {
  static const WireRows<RoutingEvent> rows = {
      constant_row<RoutingEvent>(kEventKey, "routing"),
      int_row("layer", &RoutingEvent::layer, 0, 4095),
      int_row("n_tokens", &RoutingEvent::n_tokens, 0, kMaxTokens),
      int_row("n_used", &RoutingEvent::n_used, 1, 1024),
      ids_row("ids", &RoutingEvent::ids, 0, 1 << 20, kMaxLineBytes / 2)};
  return rows;
}
void RoutingEvent::check() const {
  if (ids.size() != static_cast<size_t>(n_tokens) * static_cast<size_t>(n_used))
    throw ProtocolError("a routing event's ids do not match n_tokens x n_used");
}

bool is_event(const nlohmann::json& line) {
  return line.is_object() && line.contains(kEventKey);
}

WorkerEvent event_from(const nlohmann::json& ev) {
  const std::string kind = tag(ev, kEventKey, "a worker event");
  WorkerEvent e;
  if (kind == "decode") {
    e.decode = decode<DecodeEvent>(ev);
  } else if (kind == "routing") {
    e.routing = true;
    e.route = decode<RoutingEvent>(ev);
  } else {
    throw ProtocolError(fmt::format("unknown event '{}'", kind.substr(0, 32)));
  }
  return e;
}

nlohmann::json parse_line(std::string_view line, std::string_view what) {
  nlohmann::json j = parse_json_or_discarded(line);
  if (j.is_discarded() || !j.is_object())
    throw ProtocolError(
        fmt::format("{}: not one JSON object per line: '{}'", what, line.substr(0, 120)));
  return j;
}

}  // namespace moesweep::worker_protocol
