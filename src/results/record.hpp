#pragma once
// The plain value types that flow from the sweep runner to every sink.
// The runner never knows about sinks; sinks never know about the engine.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/point_extras.hpp"
#include "results/stats.hpp"

namespace moesweep {

// Every parameter that identifies a measured point. Two points with equal
// keys (key_string) measure the same thing and may be compared or resumed.
// A new member needs one row in point_fields() (results/point_fields.cpp):
// the key, JSONL, CSV, SQLite, compare and labels are derived from that table
// (tests/results/point_fields_test.cpp fails when a member has no row).
struct PointParams {
  // model level
  std::string model_path;  // the GGUF actually loaded
  std::string model_name;  // twin id or file stem
  std::string model_type;  // quant/ftype as the engine names it, e.g. "Q4_K - Small"
  std::string quant;       // short name, e.g. "Q4_K_S"
  std::string
      engine;  // sweep --engine: the registered engine build that measured it ("" = not chosen)
  // ik_llama.cpp's switches this point ran with, "fmoe=1 mla=3" (engine/engine_knobs.hpp);
  // "" on an engine without them or when none was set
  std::string engine_opts;
  std::string load_mode = "auto";  // the engine's: auto, none, mmap, mlock, mmap+mlock, dio
  int n_gpu_layers = -1;           // llama-bench's default (-1 = all; on a CPU build all on CPU)
  std::string tensor_overrides;    // -ot patterns, ';'-joined
  // twin axes (issue 11), as asked for; 0 = the twin's own value (or not a twin)
  int experts = 0;          // routed experts per MoE layer
  int expert_ff = 0;        // expert FFN size
  double routing_skew = 0;  // Zipf exponent s: expert e chosen ~ (e+1)^-s
  int block = 0;            // --blocks: which randomised block measured it (0 = not blocked)
  // resctrl allocation (issue 11 §3); 0 = not limited
  int l3_ways = 0;         // L3 ways of the group the threads ran in
  int mem_bw_percent = 0;  // memory bandwidth allocation, percent
  // context level
  int n_ctx = 0;
  int n_batch = 0;
  int n_ubatch = 0;
  std::string type_k = "f16";
  std::string type_v = "f16";
  int flash_attn = -1;  // llama_flash_attn_type: -1 auto (the engine decides), 0 off, 1 on
  // thread level (switched on the live context)
  int n_threads = 0;
  int n_threads_batch = 0;
  std::string cpu_mask;  // "" = engine default
  bool cpu_strict = false;
  int poll = 50;
  std::string numa = "disabled";
  // the load on the CPUs the point leaves free (issue 23, sweep/cotenant.hpp):
  // "" none, "stream", "compute" or "cmd:<command>"
  std::string cotenant;
  // cell
  int pp = 0;    // prompt tokens timed at this depth (one ubatch, sweep-bench style)
  int tg = 0;    // generated tokens timed at this depth
  int n_kv = 0;  // depth: tokens in the cache before the timed PP

  std::string key_string() const;  // canonical "k=v;..." of the key fields of point_fields()
};

// "auto", "off" or "on" for a flash_attn value (-1, 0, 1).
std::string flash_attn_name(int flash_attn);
// "none", "stream", "compute" or "cmd" for a co-tenant ("", "stream", ..., "cmd:...").
std::string cotenant_label(const std::string& cotenant);
// The load mode the older use_mmap/use_mlock pair meant.
std::string load_mode_of(bool use_mmap, bool use_mlock);

// One phase (PP or TG) of one point: all samples, their summary, counters.
struct PhaseResult {
  // Wall time of each repetition's call of the plan's tokens (PointParams pp
  // / tg): a sample of several calls (sweep --min-sample-time) gives their mean.
  std::vector<double> seconds;
  std::vector<double> tokens_per_s;
  // Tokens of one sample as run: the plan's x the calls it took
  // (sweep/sample_length.hpp); 0 = as planned (one call, or records before it).
  int tokens_run = 0;
  Stats t;                                             // over seconds
  Stats speed;                                         // over tokens_per_s
  nlohmann::json counters = nlohmann::json::object();  // metric -> value or {"unavailable": reason}

  void summarize();  // fills t and speed from the samples
};

// How many repetitions a point took, and whether --target-ci / --target-mde was met.
struct RepetitionOutcome {
  int done = 0;              // repetitions measured
  double target_ci_pct = 0;  // --target-ci; 0 = a fixed -r
  // every phase's 95% CI half-width, and the cell's MDE, within its target
  bool target_met = true;
  double target_mde_pct = 0;  // --target-mde; 0 = off

  nlohmann::json to_json() const;
};

// Memory of the engine's process around one point (issue 23); a figure the
// machine or engine did not give is absent, with its reason in `unavailable`. The list of fields,
// their JSONL/CSV names and table headers is memory_fields() (results/memory_fields.hpp).
struct MemoryFacts {
  std::optional<uint64_t> model_mapped;         // bytes of the GGUF mapped (smaps Size)
  std::optional<uint64_t> model_resident;       // of those, resident in RAM (smaps Rss)
  std::optional<uint64_t> model_mapped_engine;  // the engine's mapped model buffer (its log)
  std::optional<uint64_t> model_buffers;        // the engine's model buffers outside the mapping
  std::optional<uint64_t> kv;                   // the engine's KV buffer
  std::optional<uint64_t> kv_expected;          // kv_bytes_per_token x n_ctx (model/kv_cache.hpp)
  std::optional<uint64_t> compute;              // the engine's compute buffer
  std::optional<uint64_t> peak_rss;             // VmHWM since the context was created
  std::optional<uint64_t> rss_rollup;           // smaps_rollup Rss after the point (a 2nd reading)
  std::optional<uint64_t> available_before_load, available_after_load;  // MemAvailable
  nlohmann::json unavailable;                                           // field's JSONL name -> why

  // Not an aggregate: GCC 12 otherwise warns (-Wmaybe-uninitialized) where a
  // Record{} temporary is destroyed.
  MemoryFacts() : unavailable(nlohmann::json::object()) {}
};

struct Record {
  std::string run_id;
  int point_index = 0;  // position in the plan
  PointParams params;
  bool ok = true;
  std::string error;  // why the point failed, when !ok
  PhaseResult pp;
  PhaseResult tg;
  RepetitionOutcome repetitions;
  // Noise signals of the point (hw/noise_probe.hpp: steal, load, frequency);
  // empty for records made before they were recorded.
  nlohmann::json noise = nlohmann::json::object();
  MemoryFacts memory;
  // The point's planned co-tenant (sweep/cotenant.hpp): kind, CPUs, its own
  // throughput; empty when the point ran alone. JSONL key "cotenant_run".
  nlohmann::json cotenant = nlohmann::json::object();
  PointExtras extra;  // JSONL key "extra": engine, applied settings, roofline, ...
};

// sweep-bench's keys first (n_kv_max, n_batch, ..., speed_tg), then ours.
nlohmann::ordered_json record_to_json(const Record& r);
Record record_from_json(const nlohmann::json& j);

}  // namespace moesweep
