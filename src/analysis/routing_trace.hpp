#pragma once
// A routing trace: for every micro-batch and every MoE layer, the experts the
// router selected for each token, plus the model facts the cache analysis
// needs (bytes of one expert per layer, the per-token hot set), so `moesweep
// l3 TRACE` works without the GGUF. Stored as one zstd frame:
//   "MOESWEEP-ROUTING-TRACE 1\n" <header JSON>\n <steps>
// where a step is [u8 phase][u8 n_used][u16 layer][u32 n_tokens] followed by
// n_tokens * n_used u16 expert ids (little-endian).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include "engine/routing_observer.hpp"

namespace moesweep {

struct GgufInspection;

enum class TracePhase : uint8_t { kPrefill = 0, kGeneration = 1 };

// What the analysis needs to know about the traced model.
struct TraceModel {
  std::string path, arch, description;
  int n_layer = 0, n_expert = 0, n_expert_used = 0;
  std::vector<uint64_t> expert_bytes;  // per layer: one routed expert (0 = no experts)
  uint64_t hot_bytes = 0;              // read by every token: all but routed experts and KV
  uint64_t routed_bytes_total = 0;     // every routed expert of every layer
  // One expert's matrices, for the L3-domain model (l3_domains.hpp); empty
  // in traces written before they were recorded.
  int64_t hidden = 0, expert_ff = 0;
  std::vector<std::string> expert_matrix_types;  // ggml type names: gate, up, down or gate_up, down
  nlohmann::json extra = nlohmann::json::object();  // twin spec, run settings (free form)

  // Bytes of routed experts one token reads (n_used experts per MoE layer).
  uint64_t routed_bytes_per_token() const;
};
TraceModel trace_model_from(const GgufInspection& m);
nlohmann::json to_json(const TraceModel& m);
// The header's model facts, each checked for type and range (n_layer within
// the engine's layers, 1 <= n_expert_used <= n_expert, byte counts within
// 1 PiB and consistent with routed_bytes_total); UserError naming the field.
TraceModel trace_model_from_json(const nlohmann::json& j, const std::string& origin);

// One MoE layer of one micro-batch.
struct TraceStep {
  TracePhase phase = TracePhase::kPrefill;
  uint8_t n_used = 0;
  uint16_t layer = 0;
  uint32_t n_tokens = 0;
  uint64_t first_id = 0;  // index into RoutingTrace::ids
};

struct RoutingTrace {
  TraceModel model;
  std::vector<TraceStep> steps;
  std::vector<uint16_t> ids;  // all steps' ids, in order

  void add(TracePhase phase, int layer, int n_tokens, int n_used, const int32_t* ids);
  // Tokens traced in a phase (counted at the first MoE layer each micro-batch reached).
  uint64_t tokens(TracePhase phase) const;
};

// Records what the engine routes while a LiveContext decodes into `trace`;
// pointing it elsewhere (or at nothing) keeps later passes out of a trace.
class TraceRecorder : public RoutingObserver {
 public:
  explicit TraceRecorder(RoutingTrace* trace) : trace(trace) {}
  void on_decode(int n_tokens, bool generation) override;
  void on_routing(int layer, int n_tokens, int n_used, const int32_t* ids) noexcept override;
  RoutingTrace* trace;

 private:
  TracePhase phase_ = TracePhase::kPrefill;
};

// Writes `trace` zstd-compressed (level 3); returns the bytes written.
uint64_t write_routing_trace(const RoutingTrace& trace, const std::filesystem::path& path);
// Reads and checks a trace; UserError naming the file and the problem. The
// file is decompressed as it is parsed, with caps on the header line and on
// each step checked before its bytes are read, so a zstd bomb or /dev/zero
// costs no more memory than a real trace.
RoutingTrace read_routing_trace(const std::filesystem::path& path);
// The same from a stream of the file's bytes (`what` names it in errors); the
// file reader above opens the file and calls this.
RoutingTrace read_routing_trace(std::istream& file, const std::string& what);
// The same from the bytes of a decompressed trace (tests, hand-made traces).
RoutingTrace parse_routing_trace(const std::string& raw, const std::string& what);
std::string serialize_routing_trace(const RoutingTrace& trace);  // uncompressed

}  // namespace moesweep
