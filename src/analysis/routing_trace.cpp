#include "analysis/routing_trace.hpp"

#include <fmt/format.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "engine/engine_limits.hpp"
#include "model/gguf_inspect.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr char kMagic[] = "MOESWEEP-ROUTING-TRACE 1\n";
constexpr size_t kMagicLen = sizeof kMagic - 1;
constexpr size_t kStepHeaderBytes = 8;
// Caps that no trace of ours reaches: the header line, a step's tokens (one
// micro-batch), all the ids (2^31 of them: 4 GiB), an expert count (ids are
// u16), a model's bytes (1 PiB).
constexpr size_t kMaxHeaderBytes = 1u << 20;
constexpr uint32_t kMaxStepTokens = 1u << 24;
constexpr uint64_t kMaxTraceIds = uint64_t{1} << 31;
constexpr int kMaxTraceExperts = 65535;
constexpr uint64_t kMaxModelBytes = uint64_t{1} << 50;

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

TraceModel trace_model_from_json(const nlohmann::json& j, const std::string& origin) {
  const JsonFields f(j, origin, "header");
  TraceModel m;
  m.path = f.text("path");
  m.arch = f.text("arch");
  m.description = f.text("description");
  m.hidden = f.integer("hidden", 0, int64_t{1} << 24, 0);
  m.expert_ff = f.integer("expert_ff", 0, int64_t{1} << 24, 0);
  if (f.has("expert_matrix_types")) m.expert_matrix_types = f.texts("expert_matrix_types");
  if (m.expert_matrix_types.size() > 4) m.expert_matrix_types.clear();  // gate, up, down (+ fused)
  for (const char* key :
       {"n_layer", "n_expert", "n_expert_used", "expert_bytes", "hot_bytes", "routed_bytes_total"})
    if (!f.has(key)) f.fail(key, "the traced model's facts, as `moesweep trace` writes them");
  m.n_layer = static_cast<int>(f.integer("n_layer", 1, engine_limits::kMaxLayers, 0));
  m.n_expert = static_cast<int>(f.integer("n_expert", 1, kMaxTraceExperts, 0));
  m.n_expert_used = static_cast<int>(f.integer("n_expert_used", 1, m.n_expert, 0));
  m.hot_bytes = f.unsigned_integer("hot_bytes", kMaxModelBytes, 0);
  m.routed_bytes_total = f.unsigned_integer("routed_bytes_total", kMaxModelBytes, 0);
  const nlohmann::json& bytes = f.array("expert_bytes");
  if (bytes.size() != static_cast<size_t>(m.n_layer))
    f.fail("expert_bytes", fmt::format("one byte count per layer ({})", m.n_layer));
  uint64_t sum = 0;
  for (const auto& b : bytes) {
    if (!b.is_number_unsigned() || b.get<uint64_t>() > kMaxModelBytes)
      f.fail("expert_bytes", fmt::format("byte counts from 0 to {}", kMaxModelBytes));
    m.expert_bytes.push_back(b.get<uint64_t>());
    sum += m.expert_bytes.back();  // at most 512 x 2^50: no overflow
  }
  // Every layer's experts are part of the routed total: n_expert of each.
  if (sum > m.routed_bytes_total / static_cast<uint64_t>(m.n_expert))
    f.fail("expert_bytes", "per-layer expert sizes whose n_expert copies fit routed_bytes_total");
  m.extra = f.object("extra").json();
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

namespace {

// The bytes of a trace, decompressed or not, read piece by piece: nothing is
// held beyond the piece asked for, so a file can never decompress into more
// memory than its header and steps are allowed (a zstd bomb stops at its first
// wrong byte or at a cap).
class TraceBytes {
 public:
  virtual ~TraceBytes() = default;
  // Exactly n bytes into dst; false at the end of the data.
  virtual bool read(char* dst, size_t n) = 0;
  virtual uint64_t offset() const = 0;
};

class StringBytes : public TraceBytes {
 public:
  explicit StringBytes(const std::string& raw) : raw_(raw) {}
  bool read(char* dst, size_t n) override {
    if (raw_.size() - at_ < n) return false;
    // A step of 0 tokens reads 0 ids into a vector that may have none yet:
    // dst is null then, which memcpy may not be given even for 0 bytes.
    if (n > 0) std::memcpy(dst, raw_.data() + at_, n);
    at_ += n;
    return true;
  }
  uint64_t offset() const override { return at_; }

 private:
  const std::string& raw_;
  size_t at_ = 0;
};

class ZstdBytes : public TraceBytes {
 public:
  ZstdBytes(std::istream& in, std::string what)
      : in_(in),
        what_(std::move(what)),
        ds_(ZSTD_createDStream()),
        buf_size_(ZSTD_DStreamInSize()),
        buf_(std::make_unique_for_overwrite<char[]>(buf_size_)) {}
  ~ZstdBytes() override { ZSTD_freeDStream(ds_); }
  ZstdBytes(const ZstdBytes&) = delete;
  ZstdBytes& operator=(const ZstdBytes&) = delete;

  bool read(char* dst, size_t n) override {
    ZSTD_outBuffer out{dst, n, 0};
    while (out.pos < out.size) {
      if (zin_.pos == zin_.size && !refill()) return false;
      const size_t rc = ZSTD_decompressStream(ds_, &out, &zin_);
      if (ZSTD_isError(rc))
        throw bad_trace(what_, std::string("is not valid zstd: ") + ZSTD_getErrorName(rc));
      frame_done_ = rc == 0;
    }
    at_ += n;
    return true;
  }
  uint64_t offset() const override { return at_; }
  // All input read and the last frame complete.
  bool ended_cleanly() {
    char c;
    return !read(&c, 1) && frame_done_;
  }

 private:
  bool refill() {
    in_.read(buf_.get(), static_cast<std::streamsize>(buf_size_));
    const size_t got = static_cast<size_t>(in_.gcount());
    zin_ = {buf_.get(), got, 0};
    return got > 0;
  }
  std::istream& in_;
  std::string what_;
  ZSTD_DStream* ds_;
  // zstd's advised input block (128 KiB), left unzeroed: only the bytes
  // refill() reads are used, so a small file touches a page of it, not all.
  size_t buf_size_;
  std::unique_ptr<char[]> buf_;
  ZSTD_inBuffer zin_{nullptr, 0, 0};
  bool frame_done_ = false;
  uint64_t at_ = 0;
};

// The magic and the header line: at most kMaxHeaderBytes, read byte by byte.
TraceModel read_header(TraceBytes& in, const std::string& what) {
  char magic[kMagicLen];
  // A read that finds no more data: an empty file, or one cut short (a copy
  // that stopped, a zstd frame that ends early) -- not a wrong format.
  if (!in.read(magic, kMagicLen))
    throw bad_trace(what, "is empty or ends before its first line (cut short?)");
  if (std::memcmp(magic, kMagic, kMagicLen) != 0)
    throw bad_trace(what, "does not start with the trace header");
  std::string line;
  for (char c; line.size() <= kMaxHeaderBytes;) {
    if (!in.read(&c, 1))
      throw bad_trace(what, fmt::format("ends inside its header line, after {} bytes of it "
                                        "(cut short?)",
                                        line.size()));
    if (c == '\n') {
      const auto header = parse_json_or_discarded(line);
      if (!header.is_object()) throw bad_trace(what, "has a header that is not a JSON object");
      return trace_model_from_json(header, "routing trace '" + what + "'");
    }
    line += c;
  }
  throw bad_trace(what, fmt::format("has a header line longer than {} KiB", kMaxHeaderBytes >> 10));
}

// One step: its 8-byte head checked against the model and the caps before its
// ids are read. False at the end of the data.
bool read_step(TraceBytes& in, RoutingTrace& t, const std::string& what) {
  char head[kStepHeaderBytes];
  const uint64_t at = in.offset();
  if (!in.read(head, 1)) return false;
  if (!in.read(head + 1, kStepHeaderBytes - 1))
    throw bad_trace(what, fmt::format("is truncated at byte {}", at));
  const std::string h(head, kStepHeaderBytes);
  TraceStep s;
  s.phase = static_cast<TracePhase>(get<uint8_t>(h, 0));
  s.n_used = get<uint8_t>(h, 1);
  s.layer = get<uint16_t>(h, 2);
  s.n_tokens = get<uint32_t>(h, 4);
  const uint64_t n = static_cast<uint64_t>(s.n_tokens) * s.n_used;
  if (static_cast<uint8_t>(s.phase) > 1 || s.layer >= t.model.n_layer || s.n_used == 0 ||
      s.n_used > t.model.n_expert || s.n_tokens > kMaxStepTokens)
    throw bad_trace(what, fmt::format("has a broken step at byte {}", at));
  if (t.ids.size() + n > kMaxTraceIds)
    throw bad_trace(what, fmt::format("holds more than {} expert ids (a trace of ours has fewer)",
                                      kMaxTraceIds));
  s.first_id = t.ids.size();
  t.ids.resize(t.ids.size() + n);
  if (!in.read(reinterpret_cast<char*>(t.ids.data() + s.first_id), n * 2))
    throw bad_trace(what, fmt::format("is truncated in the step at byte {}", at));
  for (uint64_t i = s.first_id; i < t.ids.size(); ++i)
    if (t.ids[i] >= t.model.n_expert)
      throw bad_trace(what, fmt::format("names expert {} of {}", t.ids[i], t.model.n_expert));
  t.steps.push_back(s);
  return true;
}

RoutingTrace parse_trace(TraceBytes& in, const std::string& what) {
  RoutingTrace t;
  t.model = read_header(in, what);
  while (read_step(in, t, what)) {
  }
  return t;
}

}  // namespace

RoutingTrace parse_routing_trace(const std::string& raw, const std::string& what) {
  StringBytes in(raw);
  return parse_trace(in, what);
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
  require_regular_file(path, "routing trace");
  std::ifstream file(path, std::ios::binary);
  return read_routing_trace(file, path.string());
}

RoutingTrace read_routing_trace(std::istream& file, const std::string& what) {
  ZstdBytes in(file, what);
  RoutingTrace t = parse_trace(in, what);
  if (!in.ended_cleanly()) throw bad_trace(what, "is truncated (its zstd frame is cut)");
  return t;
}

}  // namespace moesweep
