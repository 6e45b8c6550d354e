#pragma once
// What a point carries beyond its parameters, under the record's "extra" key:
// the engine build that measured it, the settings the engine applied, the
// roofline, why a point failed in the engine, what another program's output
// said. One struct per object, each with one row table (point_extras.cpp)
// that drives both its reader and its writer, as point_fields() does for
// the parameters; readers use the members, never the keys.
//
// The JSON on disk keeps its layout (older runs read, and rewrite, as they
// were): a key this version does not know, or a known key of an unexpected
// type, is kept as read in the object's `untyped` and written back unchanged.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

// extra.engine: which engine build measured the point (sweep/runner.cpp), down
// to the CPU variant its registry loaded; `tool` for another program's output
// (engine add --exec). A figure the sweep did not write is absent.
struct EngineStamp {
  std::optional<std::string> kind, tool, release, commit, build, cpu_variant;
  std::optional<std::string> name;                      // sweep --engine's name
  std::optional<std::vector<std::string>> build_flags;  // with `name`
  std::optional<std::string> opts;  // ik_llama.cpp's switches (results/engine_sides.cpp)
  nlohmann::json untyped = nlohmann::json::object();
};

// extra.applied: what the engine applied of each setting it was given
// (engine/applied_settings.hpp), beside the planned values in the params.
// nullopt: the engine did not report it (null on disk); the ik_llama.cpp
// switches are absent where neither set nor reported.
struct AppliedSettings {
  std::optional<int> n_threads, n_threads_batch, n_ctx, n_batch, n_ubatch, flash_attn;
  std::optional<std::string> type_k, type_v;
  std::optional<int> fused_moe, mla, attn_max_batch;
  nlohmann::json untyped = nlohmann::json::object();
};

// extra.roofline (sweep/roofline_annotator.cpp, hw/roofline.hpp): the decode
// and prefill ceilings of the point, its bytes per token, and the machine's
// figures it was judged against. Absent: not known when the point was written.
struct PointRoofline {
  std::optional<double> active_bytes_per_token, bandwidth_gbps, bandwidth_gbps_at_threads;
  std::optional<std::string> bandwidth_source;  // "measured" | "theoretical"
  std::optional<double> roofline_tg, efficiency_tg, roofline_pp, efficiency_pp;
  std::optional<uint64_t> active_weight_bytes_per_token, kv_bytes_read_per_token;
  // One MoE layer's routed experts; all layers' (the pool); what a token reads
  // of it; the rest of a token's weights.
  std::optional<uint64_t> routed_expert_bytes_per_layer, routed_expert_bytes_total;
  std::optional<uint64_t> routed_bytes_per_token, hot_bytes_per_token;
  std::optional<uint64_t> l3_bytes, l3_effective_bytes;
  std::optional<double> kernel_gemv_out_of_cache_gbps, kernel_gemv_in_cache_gbps;
  nlohmann::json untyped = nlohmann::json::object();
};

// extra.reference: where a published table's point comes from
// (results/reference/*.jsonl, written by hand): the table, the hardware, ...
struct PublishedReference {
  std::optional<std::string> table, hardware, source, engine, settings, note;
  std::optional<double> lcp;
  std::optional<int> n_kv_published;
  nlohmann::json untyped = nlohmann::json::object();
};

// Each member absent (nullopt, empty) where the record has no such key.
struct PointExtras {
  std::optional<EngineStamp> engine;
  std::optional<AppliedSettings> applied;  // a sweep since round 4
  std::vector<std::string> applied_notes;  // harmless differences, kept and shown
  std::optional<PointRoofline> roofline;
  std::string roofline_error;                   // why a sweep could not compute the roofline
  std::optional<PublishedReference> reference;  // a published table's point
  // Shown or kept whole, never read field by field: the engine's crash
  // (engine/worker_crash) and what another program ran (sweep/exec_block.cpp).
  nlohmann::json engine_failure, ingested;
  // Kept whole, written by the per-token summaries' own to_json
  // (results/token_times.hpp, sweep/token_recorder.cpp): the decode times of
  // one token (and --token-times ab's cost), --trace-routing's traced passes.
  nlohmann::json token_times, routing_pass;
  nlohmann::json untyped = nlohmann::json::object();  // a newer version's keys
};

// The record's "extra" object, and back. Tolerant: a non-object reads as none.
nlohmann::json extras_to_json(const PointExtras& e);
PointExtras extras_from_json(const nlohmann::json& j);
// The applied settings of a check (engine/applied_settings.hpp's JSON).
AppliedSettings applied_from_json(const nlohmann::json& j);
// extra.roofline, or the figures written flat in extra (records before the
// roofline had its own object); nullopt: neither.
std::optional<PointRoofline> roofline_or_flat(const PointExtras& e);
// A byte figure as a number, `fallback` when absent.
double or_value(const std::optional<uint64_t>& v, double fallback);
double or_value(const std::optional<double>& v, double fallback);

}  // namespace moesweep
