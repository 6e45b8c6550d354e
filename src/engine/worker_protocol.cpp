#include "engine/worker_protocol.hpp"

#include <fmt/format.h>

#include <limits>

#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep::worker_protocol {
namespace {

const nlohmann::json& field(const nlohmann::json& j, std::string_view key, std::string_view what) {
  if (!j.is_object()) throw ProtocolError(fmt::format("{}: not a JSON object", what));
  const auto it = j.find(std::string(key));
  if (it == j.end()) throw ProtocolError(fmt::format("{}: field '{}' is missing", what, key));
  return *it;
}

std::vector<std::string> string_list(const nlohmann::json& j, std::string_view key,
                                     std::string_view what) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_array() || v.size() > 4096)
    throw ProtocolError(fmt::format("{}: '{}' is not a list of at most 4096 strings", what, key));
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string() || s.get_ref<const std::string&>().size() > 4096)
      throw ProtocolError(fmt::format("{}: '{}' holds a non-string or an overlong one", what, key));
    out.push_back(s.get<std::string>());
  }
  return out;
}

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxThreads = 1 << 20;

// A reply's free text ("error", "expected", "fix"): "" when absent or not a string.
std::string text_or_empty(const nlohmann::json& reply, const char* key) {
  if (!reply.is_object()) return {};
  const auto it = reply.find(key);
  return it != reply.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

int64_t int_field(const nlohmann::json& j, std::string_view key, int64_t lo, int64_t hi,
                  std::string_view what) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_number_integer())
    throw ProtocolError(fmt::format("{}: '{}' is {}, not an integer", what, key, v.dump()));
  // Unsigned values above int64's range read as negative: compare as unsigned first.
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
    throw ProtocolError(fmt::format("{}: '{}' = {} is above {}", what, key, v.dump(), hi));
  const int64_t n = v.get<int64_t>();
  if (n < lo || n > hi)
    throw ProtocolError(fmt::format("{}: '{}' = {} is outside [{}, {}]", what, key, n, lo, hi));
  return n;
}

namespace {
// A field an older worker does not send: 0 when absent, else ranged.
int optional_int(const nlohmann::json& j, std::string_view key, int64_t lo, int64_t hi,
                 std::string_view what) {
  return j.contains(std::string(key)) ? static_cast<int>(int_field(j, key, lo, hi, what)) : 0;
}
}  // namespace

std::string string_field(const nlohmann::json& j, std::string_view key, std::string_view what,
                         size_t max_bytes) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_string()) throw ProtocolError(fmt::format("{}: '{}' is not a string", what, key));
  if (v.get_ref<const std::string&>().size() > max_bytes)
    throw ProtocolError(fmt::format("{}: '{}' is longer than {} bytes", what, key, max_bytes));
  return v.get<std::string>();
}

bool bool_field(const nlohmann::json& j, std::string_view key, std::string_view what) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_boolean()) throw ProtocolError(fmt::format("{}: '{}' is not true/false", what, key));
  return v.get<bool>();
}

double number_field(const nlohmann::json& j, std::string_view key, std::string_view what) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_number()) throw ProtocolError(fmt::format("{}: '{}' is not a number", what, key));
  return v.get<double>();
}

nlohmann::json to_json(const EngineKnobs& k) {
  return {{"fused_moe", k.fused_moe},
          {"repack", k.repack},
          {"mla", k.mla},
          {"attn_max_batch", k.attn_max_batch}};
}

// "knobs" of a load or context request; absent (an older client) = none set.
EngineKnobs knobs_from(const nlohmann::json& request, const char* what) {
  EngineKnobs k;
  if (!request.contains("knobs")) return k;
  const nlohmann::json& j = request.at("knobs");
  if (!j.is_object()) throw ProtocolError(fmt::format("{}: 'knobs' is not an object", what));
  k.fused_moe = static_cast<int>(int_field(j, "fused_moe", -1, 1, what));
  k.repack = static_cast<int>(int_field(j, "repack", -1, 1, what));
  k.mla = static_cast<int>(int_field(j, "mla", -1, 3, what));
  k.attn_max_batch = static_cast<int>(int_field(j, "attn_max_batch", -1, kIntMax, what));
  return k;
}

nlohmann::json to_json(const ModelLoadParams& p) {
  return {{"path", p.path},
          {"load_mode", p.load_mode},
          {"n_gpu_layers", p.n_gpu_layers},
          {"tensor_overrides", p.tensor_overrides},
          {"n_cpu_moe", p.n_cpu_moe},
          {"numa", p.numa},
          {"knobs", to_json(p.knobs)}};
}

ModelLoadParams load_params_from(const nlohmann::json& j) {
  const char* what = "load request";
  ModelLoadParams p;
  p.path = string_field(j, "path", what);
  p.load_mode = string_field(j, "load_mode", what, 32);
  p.n_gpu_layers = static_cast<int>(int_field(j, "n_gpu_layers", -1, kIntMax, what));
  p.tensor_overrides = string_list(j, "tensor_overrides", what);
  p.n_cpu_moe = static_cast<int>(int_field(j, "n_cpu_moe", 0, 4096, what));
  p.numa = string_field(j, "numa", what, 32);
  p.knobs = knobs_from(j, what);
  return p;
}

nlohmann::json to_json(const ModelFacts& f) {
  return {
      {"path", f.path},           {"description", f.description}, {"arch", f.arch},
      {"file_type", f.file_type}, {"size_bytes", f.size_bytes},   {"n_params", f.n_params},
      {"n_layer", f.n_layer},     {"n_vocab", f.n_vocab},         {"n_ctx_train", f.n_ctx_train}};
}

ModelFacts model_facts_from(const nlohmann::json& j) {
  const char* what = "model facts";
  ModelFacts f;
  f.path = string_field(j, "path", what);
  f.description = string_field(j, "description", what);
  f.arch = string_field(j, "arch", what);
  f.file_type = string_field(j, "file_type", what);
  f.size_bytes = static_cast<uint64_t>(int_field(j, "size_bytes", 0, kI64Max, what));
  f.n_params = static_cast<uint64_t>(int_field(j, "n_params", 0, kI64Max, what));
  f.n_layer = static_cast<int>(int_field(j, "n_layer", 0, kIntMax, what));
  f.n_vocab = static_cast<int>(int_field(j, "n_vocab", 1, kIntMax, what));
  f.n_ctx_train = static_cast<int>(int_field(j, "n_ctx_train", 0, kIntMax, what));
  return f;
}

nlohmann::json to_json(const ContextParams& p) {
  return {{"n_ctx", p.n_ctx},         {"n_batch", p.n_batch}, {"n_ubatch", p.n_ubatch},
          {"type_k", p.type_k},       {"type_v", p.type_v},   {"flash_attn", p.flash_attn},
          {"knobs", to_json(p.knobs)}};
}

ContextParams context_params_from(const nlohmann::json& j) {
  const char* what = "context request";
  ContextParams p;
  p.n_ctx = static_cast<int>(int_field(j, "n_ctx", 1, kMaxTokens, what));
  p.n_batch = static_cast<int>(int_field(j, "n_batch", 1, kMaxTokens, what));
  p.n_ubatch = static_cast<int>(int_field(j, "n_ubatch", 1, kMaxTokens, what));
  p.type_k = string_field(j, "type_k", what, 32);
  p.type_v = string_field(j, "type_v", what, 32);
  p.flash_attn = static_cast<int>(int_field(j, "flash_attn", -1, 1, what));
  p.knobs = knobs_from(j, what);
  return p;
}

nlohmann::json to_json(const ThreadSettings& t) {
  return {{"n_threads", t.n_threads},
          {"n_threads_batch", t.n_threads_batch},
          {"cpu_mask", t.cpu_mask},
          {"strict", t.strict},
          {"poll", t.poll}};
}

ThreadSettings thread_settings_from(const nlohmann::json& j) {
  const char* what = "threads request";
  ThreadSettings t;
  t.n_threads = static_cast<int>(int_field(j, "n_threads", 1, kIntMax, what));
  t.n_threads_batch = static_cast<int>(int_field(j, "n_threads_batch", 1, kIntMax, what));
  t.cpu_mask = string_field(j, "cpu_mask", what, 4096);
  t.strict = bool_field(j, "strict", what);
  t.poll = static_cast<int>(int_field(j, "poll", 0, 100, what));
  return t;
}

nlohmann::json to_json(const EngineFacts& f) {
  return {{"protocol", f.protocol},
          {"kind", f.kind},
          {"release", f.release},
          {"commit", f.commit},
          {"build", f.build},
          {"cpu_variant", f.cpu_variant},
          {"library", f.library},
          {"cpu_features", f.cpu_features},
          {"system_info", f.system_info},
          {"worker", f.worker}};
}

EngineFacts engine_facts_from(const nlohmann::json& j) {
  const char* what = "the worker's hello";
  EngineFacts f;
  f.protocol = static_cast<int>(int_field(j, "protocol", 0, kIntMax, what));
  f.kind = string_field(j, "kind", what, 64);
  f.release = string_field(j, "release", what, 64);
  f.commit = string_field(j, "commit", what, 64);
  f.build = string_field(j, "build", what, 256);
  f.cpu_variant = string_field(j, "cpu_variant", what, 64);
  f.library = string_field(j, "library", what, 4096);
  f.cpu_features = string_list(j, "cpu_features", what);
  f.system_info = string_field(j, "system_info", what, 4096);
  if (j.contains("worker")) f.worker = string_field(j, "worker", what, 4096);
  return f;
}

nlohmann::json parse_line(std::string_view line, std::string_view what) {
  nlohmann::json j = parse_json_or_discarded(line);
  if (j.is_discarded() || !j.is_object())
    throw ProtocolError(
        fmt::format("{}: not one JSON object per line: '{}'", what, line.substr(0, 120)));
  return j;
}

std::string request_op(const nlohmann::json& req) {
  return string_field(req, "op", "request", 32);
}

int request_ctx(const nlohmann::json& req, std::string_view what) {
  return static_cast<int>(int_field(req, "ctx", 1, 1 << 30, what));
}

ModelLoadParams load_request_from(const nlohmann::json& req) {
  return load_params_from(field(req, "model", "load request"));
}

ContextRequest context_request_from(const nlohmann::json& req) {
  ContextRequest r;
  r.routing = bool_field(req, "routing", "context request");
  r.params = context_params_from(field(req, "context", "context request"));
  return r;
}

ThreadSettings threads_request_from(const nlohmann::json& req) {
  return thread_settings_from(field(req, "threads", "threads request"));
}

DecodeRequest decode_request_from(const nlohmann::json& req) {
  const char* what = "decode request";
  DecodeRequest r;
  r.ctx = request_ctx(req, what);
  const nlohmann::json& tokens = field(req, "tokens", what);
  if (!tokens.is_array() || tokens.size() > size_t(kMaxTokens))
    throw ProtocolError("decode request: 'tokens' is not a list of token ids");
  r.tokens.reserve(tokens.size());
  for (const nlohmann::json& t : tokens) {
    if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= (int64_t{1} << 31))
      throw ProtocolError("decode request: a token id is not an int32 >= 0");
    r.tokens.push_back(t.get<int32_t>());
  }
  r.pos0 = static_cast<int>(int_field(req, "pos0", 0, kMaxTokens, "decode"));
  r.chunk = static_cast<int>(int_field(req, "chunk", 1, kMaxTokens, "decode"));
  return r;
}

int rewind_request_from(const nlohmann::json& req) {
  return static_cast<int>(int_field(req, "n_kv", 0, kMaxTokens, "rewind request"));
}

QuantizeRequest quantize_request_from(const nlohmann::json& req) {
  const char* what = "quantize request";
  QuantizeRequest r;
  r.in = string_field(req, "in", what, 4096);
  r.out = string_field(req, "out", what, 4096);
  r.ftype = static_cast<int>(int_field(req, "ftype", 0, 1023, what));
  r.n_threads = int_field(req, "n_threads", 0, 4096, what);
  return r;
}

ExpertGemvRequest expert_gemv_request_from(const nlohmann::json& req) {
  const char* what = "expert_gemv request";
  ExpertGemvRequest r;
  r.shape.type = string_field(req, "type", what, 32);
  r.shape.hidden = int_field(req, "hidden", 1, 1 << 20, what);
  r.shape.rows = int_field(req, "rows", 1, 1 << 20, what);
  r.shape.used = static_cast<int>(int_field(req, "used", 1, 1024, what));
  r.shape.layers = static_cast<int>(int_field(req, "layers", 1, 1024, what));
  r.experts = int_field(req, "experts", 1, 1 << 20, what);
  r.threads = static_cast<int>(int_field(req, "threads", 1, 4096, what));
  r.seconds = static_cast<double>(int_field(req, "millis", 1, 600000, what)) / 1e3;
  return r;
}

void check_reply(const nlohmann::json& reply) {
  const auto ok = reply.is_object() ? reply.find("ok") : reply.end();
  if (ok == reply.end() || !ok->is_boolean())
    throw EngineError(
        fmt::format("the engine worker answered '{}' without \"ok\"", reply.dump().substr(0, 200)));
  if (ok->get<bool>()) return;
  std::string error = text_or_empty(reply, "error");
  if (error.empty()) error = "(the worker gave no reason)";
  if (text_or_empty(reply, "kind") == "input")
    throw UserError(error, text_or_empty(reply, "expected"), text_or_empty(reply, "fix"));
  throw EngineError(error);
}

EngineFacts hello_reply_from(const nlohmann::json& reply) {
  const char* what = "the worker's hello";
  // A worker that speaks our protocol but cannot run here (no CPU backend for
  // this CPU, another engine release behind the library name) says why itself.
  if (!bool_field(reply, "ok", what)) {
    const std::string error = text_or_empty(reply, "error");
    if (text_or_empty(reply, "kind") == "input" && !error.empty())
      throw UserError(error, text_or_empty(reply, "expected"), text_or_empty(reply, "fix"));
    throw ProtocolError(error.empty() ? std::string("it refused hello without a reason") : error);
  }
  const int64_t protocol = int_field(reply, "protocol", 0, 1 << 30, what);
  if (protocol != kVersion)
    throw ProtocolError(fmt::format("{}: protocol {} is not {}", what, protocol, kVersion));
  return engine_facts_from(field(reply, "engine", what));
}

LoadReply load_reply_from(const nlohmann::json& reply) {
  LoadReply r;
  r.facts = model_facts_from(field(reply, "facts", "load reply"));
  r.engine_log = string_field(reply, "engine_log", "load reply", size_t{1} << 20);
  return r;
}

ContextReply context_reply_from(const nlohmann::json& reply) {
  const char* what = "context reply";
  ContextReply r;
  r.ctx = static_cast<int>(int_field(reply, "ctx", 1, 1 << 30, what));
  r.n_ctx = static_cast<int>(int_field(reply, "n_ctx", 1, kMaxTokens, what));
  r.n_batch = optional_int(reply, "n_batch", 1, kMaxTokens, what);
  r.n_ubatch = optional_int(reply, "n_ubatch", 1, kMaxTokens, what);
  r.engine_log = string_field(reply, "engine_log", what, size_t{1} << 20);
  return r;
}

AppliedThreads threads_reply_from(const nlohmann::json& reply) {
  const char* what = "threads reply";
  AppliedThreads t;
  t.n_threads = optional_int(reply, "n_threads", 1, kMaxThreads, what);
  t.n_threads_batch = optional_int(reply, "n_threads_batch", 1, kMaxThreads, what);
  return t;
}

double decode_reply_from(const nlohmann::json& reply) {
  const double s = number_field(reply, "seconds", "decode reply");
  if (!(s > 0) || s > 1e9) throw EngineError(fmt::format("the worker timed a decode at {} s", s));
  return s;
}

int cached_reply_from(const nlohmann::json& reply) {
  return static_cast<int>(int_field(reply, "n", 0, kMaxTokens, "cached reply"));
}

std::string quantize_reply_from(const nlohmann::json& reply) {
  return string_field(reply, "log", "quantize reply", size_t{16} << 20);
}

ExpertGemvPoint expert_gemv_reply_from(const nlohmann::json& reply) {
  const char* what = "expert_gemv reply";
  ExpertGemvPoint p;
  p.pool_bytes = static_cast<uint64_t>(int_field(reply, "pool_bytes", 0, kI64Max, what));
  p.expert_bytes = static_cast<uint64_t>(int_field(reply, "expert_bytes", 0, kI64Max, what));
  p.gbps = number_field(reply, "gbps", what);
  p.tokens_per_s = number_field(reply, "tokens_per_s", what);
  return p;
}

WorkerEvent event_from(const nlohmann::json& ev) {
  const char* what = "a routing event";
  WorkerEvent e;
  const std::string kind = string_field(ev, "event", what, 16);
  e.n_tokens = static_cast<int>(int_field(ev, "n_tokens", 0, kMaxTokens, what));
  if (kind == "decode") {
    e.generation = bool_field(ev, "generation", what);
    return e;
  }
  if (kind != "routing") throw ProtocolError(fmt::format("unknown event '{}'", kind));
  e.routing = true;
  e.layer = static_cast<int>(int_field(ev, "layer", 0, 4095, what));
  e.n_used = static_cast<int>(int_field(ev, "n_used", 1, 1024, what));
  const nlohmann::json& ids = field(ev, "ids", what);
  if (!ids.is_array() || ids.size() != static_cast<size_t>(e.n_tokens) * e.n_used)
    throw ProtocolError("a routing event's ids do not match n_tokens x n_used");
  e.ids.reserve(ids.size());
  for (const auto& id : ids) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= 1 << 20)
      throw ProtocolError("a routing event holds an expert id out of range");
    e.ids.push_back(id.get<int32_t>());
  }
  return e;
}

}  // namespace moesweep::worker_protocol
