#pragma once
// SweepSpec: every axis of a sweep, after merging a profile file
// (profiles/sweeps/*.json) with command-line flags (flags win). The same
// settings map feeds both, so a profile key is always the flag's long name.
// Each member's default is the sweep's default: a setting not given leaves
// it; sweep_settings.cpp's table says which setting sets which member and
// under which name the spec's JSON writes it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/engine_knobs.hpp"
#include "model/model_profile.hpp"
#include "sweep/twin_axes.hpp"

namespace moesweep {

// A model to sweep: a GGUF file, or a twin (profile + quant) built on demand.
struct ModelChoice {
  std::string file;          // set for real GGUF files
  std::string twin_profile;  // set for twins
  std::string quant;         // twin quant type
};

// The longest --min-sample-time: a sample is one measurement, not a run.
inline constexpr double kMaxMinSampleTime = 600;

struct SweepSpec {
  std::string name = "adhoc";
  std::vector<ModelChoice> models;  // --model x --quant (default: the kimi-k2.5 twin at Q4_K_S)
  // twin options shared by every twin model
  std::string twin_scale = "tiny";
  uint64_t twin_seed = 42;
  ShapeOverrides twin_overrides;  // shared; experts and expert_ff come from the axes below
  // twin axes (twin_axes.hpp): one twin, and model group, per combination;
  // empty = the twin's own value
  std::vector<int> twin_experts;
  ExpertsAutoL3 twin_experts_auto;  // --experts auto-l3:LO-HI, resolved by the plan
  std::vector<int> twin_expert_ff;
  std::vector<double> routing_skew;
  int blocks = 1;  // model groups measured in this many randomised blocks (plan.hpp)
  uint64_t block_seed = 1;
  // model-level axes (defaults: the pinned engine's llama-bench defaults)
  std::string load_mode = "auto";  // auto, none, mmap, mlock, mmap+mlock, dio (-lm)
  int n_gpu_layers = -1;
  std::vector<std::string> tensor_overrides;  // "pattern=BUFT", applied together
  std::vector<int> n_cpu_moe;                 // axis; empty = not used
  std::string numa = "disabled";
  std::vector<int> l3_ways, mem_bw_percent;  // resctrl axes (hw/resctrl.hpp); empty = not used
  // context-level axes
  std::vector<int> n_ctx;  // empty = sized per context as llama-bench does (see ctx_for)
  std::vector<int> n_batch = {2048}, n_ubatch = {512};
  std::vector<std::string> type_k = {"f16"}, type_v = {"f16"};
  std::vector<int> flash_attn = {-1};  // -1 auto, 0 off, 1 on (llama_flash_attn_type)
  // thread-level axes
  std::vector<int> threads = {1};
  std::vector<int> threads_batch;             // empty = same as threads
  std::vector<std::string> cpu_masks = {""};  // "" = no mask
  bool cpu_strict = false;
  int poll = 50;
  // the co-tenant axis (sweep/cotenant.hpp): "" none, stream, compute, cmd:...
  std::vector<std::string> cotenants = {""};
  std::string cotenant_cpus;  // "" = the CPUs a point's mask leaves free
  // the walk
  std::vector<int> depths;  // explicit N_KV list; empty = derived from step/max
  int depth_step = 0;       // 0 = n_ubatch (sweep-bench's step)
  int depth_max = -1;       // -1 = as deep as the context allows
  int n_prompt = 0;         // PP tokens per measurement; 0 = n_ubatch (sweep-bench)
  int n_gen = 32;
  int repetitions = 3;       // the minimum with target_ci_pct
  double target_ci_pct = 0;  // repeat until the 95% CI half-width of the mean is within it; 0 = off
  int max_repetitions = 20;  // the most repetitions target_ci_pct / target_mde_pct may take
  // Repeat until every compared cell's minimum detectable effect (compare's
  // default test and family, 90% power) is within this percent;
  // 0 = off (sweep/repetition_rule.hpp).
  double target_mde_pct = 0;
  // Seconds of the sweep after which no point takes a repetition beyond -r
  // (--target-ci / --target-mde stop adding); 0 = no limit.
  double max_time_s = 0;
  // Seconds a sample must last at least (sweep/sample_length.hpp): each
  // sample repeats the call of -n (-p) tokens at its depth until it does;
  // -1 = not given (this machine's noise profile decides), 0 = one call.
  double min_sample_time_s = -1;
  // The same when min_sample_time_s is not given and this machine has no
  // usable noise profile (a fresh CI runner); 0 = one call.
  double fallback_sample_time_s = 0;
  double point_timeout_s = 1800;  // an engine call of a point longer than this: hung (0 = none)
  uint64_t token_seed = 1234;
  // Per-token decode times of every TG sample (sweep/token_recorder.hpp): on,
  // off, or ab (every other pair of samples timed whole only: their cost).
  std::string token_times = "on";
  // engine builds to measure every point on (engine/engine_registry.hpp), in
  // ABBA order; empty = this moesweep's own worker, with no engine in the key
  std::vector<std::string> engines;
  // registered engines whose loaders the twin's layout must suit as well,
  // not measured (--twin-for): one sweep per release still measures one twin
  std::vector<std::string> twin_for;
  // ik_llama.cpp's -fmoe/-rtr/-mla/-amb, for the sweep's ik_llama.cpp engines only
  EngineKnobs engine_knobs;
  // run
  std::string counters = "auto";
  std::string sim_cache;  // --sim-cache: the caches --counters sim simulates ("" = its defaults)
  bool sim_per_token = false;   // --sim-per-token: a callgrind dump per generated token
  bool sim_keep_dumps = false;  // --sim-keep-dumps: callgrind's dumps kept in the run's callgrind/
  bool allow_oversubscribe = false;

  // The depth list for one context (validated against n_ctx by the plan).
  std::vector<int> depths_for(int n_ctx, int n_ubatch) const;
  // The context sizes for one ubatch: -c as given; without -c, llama-bench's
  // n_prompt + n_gen + n_depth for the deepest depth of --depths/--depth-max,
  // or kDefaultCtx for the open-ended sweep-bench walk.
  std::vector<int> ctx_for(int n_ubatch) const;
  static constexpr int kDefaultCtx = 4096;
  nlohmann::json to_json() const;
};

// settings: flag long name -> JSON value (string, number, bool or array).
// Throws UserError naming the key, the expected form and the fix.
SweepSpec spec_from_settings(const std::map<std::string, nlohmann::json>& settings,
                             const std::string& origin);
// The keys spec_from_settings understands (a profile with another key is refused).
const std::vector<std::string>& known_sweep_keys();
// A shipped profile name (profiles/sweeps/<name>.json) or a path.
std::map<std::string, nlohmann::json> load_sweep_profile(const std::string& name_or_path,
                                                         std::string* origin);

}  // namespace moesweep
