#include "analysis/routing_trace.hpp"

#include <fmt/format.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "model/gguf_inspect.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr char kMagic[] = "MOESWEEP-ROUTING-TRACE 1\n";
constexpr size_t kMagicLen = sizeof kMagic - 1;
constexpr size_t kStepHeaderBytes = 8;

// "blk.12.ffn_up_exps.weight" -> 12; -1 when the name has no block number.
int block_of(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  return std::atoi(name.c_str() + 4);
}

UserError bad_trace(const std::string& what, const std::string& problem) {
  return UserError(fmt::format("routing trace '{}' {}", what, problem),
                   "a file written by `moesweep trace` (zstd, header 'MOESWEEP-ROUTING-TRACE 1')",
                   "record it again with `moesweep trace MODEL`");
}

template <typename T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // x86-64 only: little-endian as the format says
  out.append(b, sizeof(T));
}

template <typename T>
T get(const std::string& in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  return v;
}

}  // namespace

uint64_t TraceModel::routed_bytes_per_token() const {
  uint64_t sum = 0;
  for (uint64_t b : expert_bytes) sum += b * static_cast<uint64_t>(n_expert_used);
  return sum;
}

TraceModel trace_model_from(const GgufInspection& m) {
  TraceModel t;
  t.path = m.files.empty() ? "" : m.files.front().string();
  t.arch = m.arch;
  t.description = m.model_name;
  t.n_layer = static_cast<int>(m.n_layer);
  t.n_expert = static_cast<int>(m.n_expert);
  t.n_expert_used = static_cast<int>(m.n_expert_used);
  t.expert_bytes.assign(static_cast<size_t>(std::max(0, t.n_layer)), 0);
  for (const TensorEntry& e : m.tensors) {
    const int blk = block_of(e.name);
    if (e.group != TensorGroup::kRoutedExperts || blk < 0 || blk >= t.n_layer || m.n_expert <= 0)
      continue;
    t.expert_bytes[static_cast<size_t>(blk)] += e.bytes / static_cast<uint64_t>(m.n_expert);
    t.routed_bytes_total += e.bytes;
  }
  const ActiveBytes a = active_bytes_per_token(m, 0, GGML_TYPE_F16, GGML_TYPE_F16);
  t.hot_bytes = a.non_expert + a.shared;
  t.hidden = m.n_embd;
  t.expert_ff = m.expert_ff;
  const int first = static_cast<int>(m.n_layer_dense_lead);
  for (const char* kind : {"gate_up", "gate", "up", "down"})
    for (const TensorEntry& e : m.tensors)
      if (e.name == fmt::format("blk.{}.ffn_{}_exps.weight", first, kind))
        t.expert_matrix_types.push_back(ggml_type_name(e.type));
  return t;
}

nlohmann::json to_json(const TraceModel& m) {
  return {{"path", m.path},
          {"arch", m.arch},
          {"description", m.description},
          {"n_layer", m.n_layer},
          {"n_expert", m.n_expert},
          {"n_expert_used", m.n_expert_used},
          {"expert_bytes", m.expert_bytes},
          {"hot_bytes", m.hot_bytes},
          {"routed_bytes_total", m.routed_bytes_total},
          {"hidden", m.hidden},
          {"expert_ff", m.expert_ff},
          {"expert_matrix_types", m.expert_matrix_types},
          {"extra", m.extra}};
}

TraceModel trace_model_from_json(const nlohmann::json& j) {
  TraceModel m;
  try {
    m.path = j.value("path", "");
    m.arch = j.value("arch", "");
    m.description = j.value("description", "");
    m.n_layer = j.at("n_layer").get<int>();
    m.n_expert = j.at("n_expert").get<int>();
    m.n_expert_used = j.at("n_expert_used").get<int>();
    m.expert_bytes = j.at("expert_bytes").get<std::vector<uint64_t>>();
    m.hot_bytes = j.at("hot_bytes").get<uint64_t>();
    m.routed_bytes_total = j.at("routed_bytes_total").get<uint64_t>();
    m.hidden = j.value("hidden", int64_t{0});
    m.expert_ff = j.value("expert_ff", int64_t{0});
    m.expert_matrix_types = j.value("expert_matrix_types", std::vector<std::string>{});
    if (m.expert_matrix_types.size() > 4) m.expert_matrix_types.clear();
    m.extra = j.value("extra", nlohmann::json::object());
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("routing trace header is malformed: {}", e.what()),
                    "n_layer, n_expert, n_expert_used, expert_bytes, hot_bytes, routed_bytes_total",
                    "record the trace again with `moesweep trace MODEL`");
  }
  if (m.n_layer <= 0 || m.n_expert <= 0 || m.n_expert > 65535 || m.n_expert_used <= 0 ||
      m.expert_bytes.size() != static_cast<size_t>(m.n_layer))
    throw UserError(
        "routing trace header has impossible model facts",
        "n_layer > 0, 0 < n_expert <= 65535, n_expert_used > 0, one expert_bytes per layer",
        "record the trace again with `moesweep trace MODEL`");
  return m;
}

void RoutingTrace::add(TracePhase phase, int layer, int n_tokens, int n_used, const int32_t* src) {
  TraceStep s;
  s.phase = phase;
  s.layer = static_cast<uint16_t>(layer);
  s.n_tokens = static_cast<uint32_t>(n_tokens);
  s.n_used = static_cast<uint8_t>(n_used);
  s.first_id = ids.size();
  steps.push_back(s);
  const size_t n = static_cast<size_t>(n_tokens) * static_cast<size_t>(n_used);
  for (size_t i = 0; i < n; ++i) ids.push_back(static_cast<uint16_t>(src[i]));
}

uint64_t RoutingTrace::tokens(TracePhase phase) const {
  // A micro-batch starts where the layer number stops rising; its first step
  // has every token of the micro-batch (only the last layer may have fewer).
  uint64_t n = 0;
  int prev_layer = 1 << 30;
  for (const TraceStep& s : steps) {
    if (s.layer <= prev_layer && s.phase == phase) n += s.n_tokens;
    prev_layer = s.layer;
  }
  return n;
}

void TraceRecorder::on_decode(int, bool generation) {
  phase_ = generation ? TracePhase::kGeneration : TracePhase::kPrefill;
}

void TraceRecorder::on_routing(int layer, int n_tokens, int n_used, const int32_t* ids) noexcept {
  if (trace) trace->add(phase_, layer, n_tokens, n_used, ids);
}

std::string serialize_routing_trace(const RoutingTrace& trace) {
  std::string out(kMagic, kMagicLen);
  out += to_json(trace.model).dump() + "\n";
  out.reserve(out.size() + trace.steps.size() * kStepHeaderBytes + trace.ids.size() * 2);
  for (const TraceStep& s : trace.steps) {
    put<uint8_t>(out, static_cast<uint8_t>(s.phase));
    put<uint8_t>(out, s.n_used);
    put<uint16_t>(out, s.layer);
    put<uint32_t>(out, s.n_tokens);
    const size_t n = static_cast<size_t>(s.n_tokens) * s.n_used;
    out.append(reinterpret_cast<const char*>(trace.ids.data() + s.first_id), n * 2);
  }
  return out;
}

RoutingTrace parse_routing_trace(const std::string& raw, const std::string& what) {
  if (raw.compare(0, kMagicLen, kMagic) != 0)
    throw bad_trace(what, "does not start with the trace header");
  const size_t eol = raw.find('\n', kMagicLen);
  if (eol == std::string::npos) throw bad_trace(what, "has no header line");
  RoutingTrace t;
  const auto header =
      parse_json_or_discarded(std::string_view(raw).substr(kMagicLen, eol - kMagicLen));
  if (!header.is_object()) throw bad_trace(what, "has a header that is not a JSON object");
  t.model = trace_model_from_json(header);
  for (size_t at = eol + 1; at < raw.size();) {
    if (raw.size() - at < kStepHeaderBytes)
      throw bad_trace(what, fmt::format("is truncated at byte {}", at));
    TraceStep s;
    s.phase = static_cast<TracePhase>(get<uint8_t>(raw, at));
    s.n_used = get<uint8_t>(raw, at + 1);
    s.layer = get<uint16_t>(raw, at + 2);
    s.n_tokens = get<uint32_t>(raw, at + 4);
    at += kStepHeaderBytes;
    const uint64_t n = static_cast<uint64_t>(s.n_tokens) * s.n_used;
    if (static_cast<uint8_t>(s.phase) > 1 || s.layer >= t.model.n_layer || s.n_used == 0 ||
        s.n_used > t.model.n_expert || n * 2 > raw.size() - at)
      throw bad_trace(what, fmt::format("has a broken step at byte {}", at - kStepHeaderBytes));
    s.first_id = t.ids.size();
    t.ids.resize(t.ids.size() + n);
    std::memcpy(t.ids.data() + s.first_id, raw.data() + at, n * 2);
    at += n * 2;
    for (uint64_t i = s.first_id; i < t.ids.size(); ++i)
      if (t.ids[i] >= t.model.n_expert)
        throw bad_trace(what, fmt::format("names expert {} of {}", t.ids[i], t.model.n_expert));
    t.steps.push_back(s);
  }
  return t;
}

uint64_t write_routing_trace(const RoutingTrace& trace, const std::filesystem::path& path) {
  const std::string raw = serialize_routing_trace(trace);
  std::string packed(ZSTD_compressBound(raw.size()), '\0');
  const size_t n = ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 3);
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
  std::ofstream out(path, std::ios::binary);
  out.write(packed.data(), static_cast<std::streamsize>(n));
  if (!out.flush())
    throw UserError(fmt::format("cannot write routing trace '{}'", path.string()),
                    "a writable directory", "choose another --out-dir");
  return n;
}

RoutingTrace read_routing_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UserError(fmt::format("cannot open routing trace '{}'", path.string()),
                    "a routing.trace.zst written by `moesweep trace`", "check the path");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string packed = ss.str();
  std::string raw;
  ZSTD_DStream* ds = ZSTD_createDStream();
  ZSTD_inBuffer zin{packed.data(), packed.size(), 0};
  std::string chunk(ZSTD_DStreamOutSize(), '\0');
  size_t rc = 1;
  for (;;) {
    ZSTD_outBuffer zout{chunk.data(), chunk.size(), 0};
    rc = ZSTD_decompressStream(ds, &zout, &zin);
    if (ZSTD_isError(rc)) break;
    raw.append(chunk.data(), zout.pos);
    if (zin.pos == zin.size && zout.pos < zout.size) break;  // all input read, all output out
  }
  ZSTD_freeDStream(ds);
  if (packed.empty() || ZSTD_isError(rc) || rc != 0)
    throw bad_trace(path.string(), ZSTD_isError(rc)
                                       ? std::string("is not valid zstd: ") + ZSTD_getErrorName(rc)
                                       : "is empty or truncated");
  return parse_routing_trace(raw, path.string());
}

}  // namespace moesweep
