#include "sweep/sweep_settings.hpp"

#include <string_view>
#include <utility>

#include "model/shape_flags.hpp"
#include "sweep/spec_parsers.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep {
namespace {

// The table: `before`, the twin's shape flags (model/shape_flags.hpp, the one
// list synth, trace and serve-bench use too: each an override of the twin's
// shape, one value), then `after`. A flag that is an axis of the sweep (a list
// of twins) takes its row in `axes` in place of the override's.
Rows<SweepSetting> around_shape_flags(std::vector<SweepSetting> before,
                                      const std::vector<SweepSetting>& axes,
                                      const std::vector<SweepSetting>& after) {
  for (const ShapeFlag& f : twin_shape_flags()) {
    SweepSetting row{.key = f.key,
                     .cli_names = f.flag,
                     .help = f.sweep_help(),
                     .level = SettingLevel::kTwin,
                     .member = f.member,
                     .min = 1};
    for (const SweepSetting& axis : axes)
      if (std::string_view(axis.key) == f.key) {
        row.member = axis.member;
        row.parse = axis.parse;
        row.json = axis.json;
        row.write = axis.write;
      }
    before.push_back(row);
  }
  before.insert(before.end(), after.begin(), after.end());
  return Rows<SweepSetting>(std::move(before));
}

}  // namespace

const Rows<SweepSetting>& sweep_settings() {
  using K = SettingKind;
  using L = SettingLevel;
  using S = SweepSpec;
  namespace p = spec_parsers;
  // Designated initializers: a row names only what differs from "not there".
  // clang-format off
  static const Rows<SweepSetting> table = around_shape_flags({
      {.key = "name", .cli_names = "--name", .help = "run name (default: the profile's or 'adhoc')",
       .member = &S::name, .json = "name"},
      {.key = "description", .help = "what the profile is for (profiles only)", .kind = K::kProfileOnly},
      // the models and their twins
      {.key = "model", .cli_names = "-m,--model",
       .help = "GGUF file(s) or twin profile name(s), comma-separated (default kimi-k2.5 twin)",
       .level = L::kTwin, .parse = p::models, .write = p::write_models},
      {.key = "quant", .cli_names = "-q,--quant",  // read with --model
       .help = "twin quant type(s): Q4_K_S,Q4_K_M,Q6_K,Q8_0,F16,...", .level = L::kTwin},
      {.key = "scale", .cli_names = "--scale", .help = "twin size preset: tiny, small, full",
       .level = L::kTwin, .member = &S::twin_scale, .json = "twin_scale"},
      {.key = "seed", .cli_names = "--seed", .help = "twin weight seed", .level = L::kTwin,
       .member = &S::twin_seed, .json = "twin_seed"},
  }, {  // the shape flags that are axes
      {.key = "experts", .member = &S::twin_experts, .parse = p::experts, .json = "twin_experts",
       .write = p::write_experts_auto_l3},
      {.key = "expert-ff", .member = &S::twin_expert_ff, .json = "twin_expert_ff"},
  }, {  // after the shape flags (layers, hidden, ..., experts, expert-ff)
      {.key = "routing-skew", .cli_names = "--routing-skew",
       .help = "twin axis: Zipf exponent s of expert popularity, (e+1)^-s (0 = the twin's random routing)",
       .level = L::kTwin, .member = &S::routing_skew, .parse = p::routing_skew, .json = "routing_skew"},
      {.key = "blocks", .cli_names = "--blocks",
       .help = "measure every model group in N blocks, each block in its own random order "
               "(interleaved twins: drift and neighbours spread over all of them)",
       .level = L::kModel, .member = &S::blocks, .min = 1, .check = p::check_blocks},
      {.key = "block-seed", .cli_names = "--block-seed", .help = "seed of the random orders: the blocks' (--blocks) and each round's turns of 3 or more engines",
       .level = L::kModel, .member = &S::block_seed},
      // model level
      {.key = "load-mode", .cli_names = "--load-mode", .llama_alias = "-lm",
       .help = "how the engine loads the model (-lm): auto, none, mmap, mlock, mmap+mlock, dio (default auto)",
       .level = L::kModel, .member = &S::load_mode, .parse = p::load_mode, .json = "load_mode"},
      {.key = "mmap", .cli_names = "--mmap", .llama_alias = "-mmp",  // read with --load-mode
       .help = "older spelling (-mmp): on = -lm mmap, off = -lm none", .level = L::kModel},
      {.key = "mlock", .cli_names = "--mlock",  // read with --load-mode
       .help = "older spelling: lock the model in RAM (= -lm mmap+mlock)", .kind = K::kSwitch,
       .level = L::kModel},
      {.key = "n-gpu-layers", .cli_names = "--n-gpu-layers", .llama_alias = "-ngl",
       .help = "layers to offload (-ngl; default -1 = all, as llama-bench; a CPU build keeps them on CPU)",
       .level = L::kModel, .member = &S::n_gpu_layers, .min = -1, .json = "n_gpu_layers"},
      {.key = "override-tensor", .cli_names = "--override-tensor", .llama_alias = "-ot",
       .help = "tensor buffer override (-ot), e.g. exps=CPU", .kind = K::kRepeated, .level = L::kModel,
       .member = &S::tensor_overrides, .parse = p::tensor_overrides, .json = "tensor_overrides"},
      {.key = "n-cpu-moe", .cli_names = "--n-cpu-moe", .llama_alias = "-ncmoe",
       .help = "keep the experts of the first N layers on CPU (axis)", .level = L::kModel,
       .member = &S::n_cpu_moe, .json = "n_cpu_moe"},
      {.key = "l3-ways", .cli_names = "--l3-ways",
       .help = "L3 ways the run's threads may fill (axis; resctrl L3 cache allocation, bare metal only)",
       .level = L::kModel, .member = &S::l3_ways, .min = 1, .json = "l3_ways"},
      {.key = "mem-bw-percent", .cli_names = "--mem-bw-percent",
       .help = "memory bandwidth allocation in percent (axis; resctrl MBA, bare metal only)",
       .level = L::kModel, .member = &S::mem_bw_percent, .min = 1, .json = "mem_bw_percent"},
      {.key = "numa", .cli_names = "--numa", .help = "NUMA strategy: disabled, distribute, isolate, numactl",
       .level = L::kModel, .member = &S::numa, .check = p::check_numa, .json = "numa"},
      // context level
      {.key = "ctx-size", .cli_names = "-c,--ctx-size",
       .help = "context size(s) (default: deepest depth + PP + TG as llama-bench; 4096 for the open walk)",
       .level = L::kContext, .member = &S::n_ctx, .min = 64, .json = "n_ctx"},
      {.key = "batch-size", .cli_names = "-b,--batch-size", .help = "logical batch size(s)",
       .level = L::kContext, .member = &S::n_batch, .min = 1, .json = "n_batch"},
      {.key = "ubatch-size", .cli_names = "--ubatch-size", .llama_alias = "-ub",
       .help = "physical batch size(s) (-ub)", .level = L::kContext, .member = &S::n_ubatch, .min = 1,
       .json = "n_ubatch"},
      {.key = "cache-type-k", .cli_names = "--cache-type-k", .llama_alias = "-ctk",
       .help = "K cache type(s) (-ctk): f16, q8_0, q4_0, ...", .level = L::kContext,
       .member = &S::type_k, .check = p::check_cache_type_k, .json = "type_k"},
      {.key = "cache-type-v", .cli_names = "--cache-type-v", .llama_alias = "-ctv",
       .help = "V cache type(s) (-ctv); quantized V needs -fa on or auto", .level = L::kContext,
       .member = &S::type_v, .check = p::check_cache_type_v, .json = "type_v"},
      {.key = "flash-attn", .cli_names = "--flash-attn", .llama_alias = "-fa",
       .help = "flash attention (-fa): auto, on, off or a list (default auto)", .level = L::kContext,
       .member = &S::flash_attn, .parse = p::flash_attn, .json = "flash_attn"},
      // thread level
      {.key = "threads", .cli_names = "-t,--threads", .help = "threads for generation: 16,14,13,12 or 12-16",
       .level = L::kThread, .member = &S::threads, .min = 1, .json = "threads"},
      {.key = "threads-batch", .cli_names = "--threads-batch", .llama_alias = "-tb",
       .help = "threads for prefill (-tb), default = --threads", .level = L::kThread,
       .member = &S::threads_batch, .min = 1, .json = "threads_batch"},
      // ';' between alternatives: a mask is itself a list ("0-3,8-11").
      {.key = "cpu-mask", .cli_names = "-C,--cpu-mask",
       .help = "CPU mask(s): 0xffff or 0-15 (';' between alternatives)", .level = L::kThread,
       .member = &S::cpu_masks, .separator = ';', .json = "cpu_masks"},
      {.key = "cpu-strict", .cli_names = "--cpu-strict", .help = "strict CPU placement",
       .kind = K::kSwitch, .level = L::kThread, .member = &S::cpu_strict, .json = "cpu_strict"},
      {.key = "poll", .cli_names = "--poll", .help = "threadpool polling level 0-100", .level = L::kThread,
       .member = &S::poll, .json = "poll"},
      {.key = "cotenant", .cli_names = "--cotenant",
       .help = "load on the CPUs a point leaves free while it is timed (axis): none, stream, compute, "
               "cmd:\"COMMAND\"",
       .level = L::kThread, .member = &S::cotenants, .parse = p::cotenants, .json = "cotenants",
       .json_when_set = true},
      {.key = "cotenant-cpus", .cli_names = "--cotenant-cpus",
       .help = "CPUs of the co-tenant (default: those the point's -C mask leaves free)",
       .level = L::kThread, .member = &S::cotenant_cpus, .json = "cotenant_cpus", .json_when_set = true},
      // the walk and the measurement
      {.key = "depths", .cli_names = "-d,--depths,--n-depth",
       .help = "N_KV depths: 0,512,1024 or 0-8192+1024 (default: sweep-bench walk)", .level = L::kWalk,
       .member = &S::depths, .json = "depths"},
      {.key = "depth-step", .cli_names = "--depth-step", .help = "depth step (default: ubatch)",
       .level = L::kWalk, .member = &S::depth_step, .json = "depth_step"},
      {.key = "depth-max", .cli_names = "--depth-max", .help = "deepest N_KV (default: as deep as ctx allows)",
       .level = L::kWalk, .member = &S::depth_max, .min = -1, .json = "depth_max"},
      {.key = "n-prompt", .cli_names = "-p,--n-prompt", .help = "PP tokens per measurement (default: one ubatch)",
       .level = L::kWalk, .member = &S::n_prompt, .json = "n_prompt"},
      {.key = "n-gen", .cli_names = "-n,--n-gen", .help = "TG tokens per measurement", .level = L::kWalk,
       .member = &S::n_gen, .json = "n_gen"},
      {.key = "repetitions", .cli_names = "-r,--repetitions",
       .help = "repetitions per point (the minimum with --target-ci)", .level = L::kWalk,
       .member = &S::repetitions, .min = 1, .json = "repetitions"},
      {.key = "target-ci", .cli_names = "--target-ci",
       .help = "repeat each point until the 95% CI half-width of its mean speed is within this percent",
       .level = L::kWalk, .member = &S::target_ci_pct, .json = "target_ci_pct"},
      {.key = "target-mde", .cli_names = "--target-mde",
       .help = "repeat until every compared cell's minimum detectable effect (compare's default test "
               "and family, 90% power) is within this percent; engines stay interleaved",
       .level = L::kWalk, .member = &S::target_mde_pct, .check = p::check_target_mde,
       .json = "target_mde_pct", .json_when_set = true},
      {.key = "max-repetitions", .cli_names = "--max-repetitions",
       .help = "most repetitions per point with --target-ci or --target-mde (20)", .level = L::kWalk,
       .member = &S::max_repetitions, .parse = p::max_repetitions, .json = "max_repetitions"},
      {.key = "max-time", .cli_names = "--max-time",
       .help = "seconds after which no point takes repetitions beyond -r (--target-ci, --target-mde); "
               "each cell gets a fair share of what is left (0 = no limit)",
       .level = L::kWalk, .member = &S::max_time_s, .json = "max_time_s", .json_when_set = true},
      {.key = "min-sample-time", .cli_names = "--min-sample-time",
       .help = "seconds each sample lasts at least: the call of -n (-p) tokens is repeated at its depth "
               "until it does (default: where this machine's noise profile, `moesweep hw --noise`, "
               "stops falling; 0 = one call, the plan's -n)",
       .level = L::kWalk, .member = &S::min_sample_time_s, .check = p::check_min_sample_time,
       .json = "min_sample_time_s", .json_when_set = true},
      {.key = "sample-time-without-profile", .cli_names = "--sample-time-without-profile",
       .help = "seconds each sample lasts at least when this machine has no noise profile and no "
               "--min-sample-time is given (default 0: one call of -n; the ci-ab profile sets 0.8, "
               "for a gate on a fresh runner)",
       .level = L::kWalk, .member = &S::fallback_sample_time_s,
       .check = p::check_min_sample_time, .json = "sample_time_without_profile_s",
       .json_when_set = true},
      {.key = "token-seed", .cli_names = "--token-seed", .help = "seed of the random prompt tokens",
       .level = L::kWalk, .member = &S::token_seed, .json = "token_seed"},
      {.key = "token-times", .cli_names = "--token-times",
       .help = "each generated token's decode time in every TG sample (tokens.jsonl): on, off, or ab "
               "(every other pair of samples timed whole only, to measure the timing's cost)",
       .level = L::kWalk, .member = &S::token_times, .check = p::check_token_times,
       .json = "token_times", .json_when_set = true},
      {.key = "point-timeout", .cli_names = "--point-timeout",
       .help = "seconds one engine call may take (loading the model, making a context, each call of a "
               "point) before the engine counts as hung and its points fail (default 1800; 0 = no limit)",
       .level = L::kWalk, .member = &S::point_timeout_s, .json = "point_timeout_s",
       .json_when_set = true},
      // engines (issue 19)
      {.key = "engine", .cli_names = "--engine",
       .help = "engine build(s) to measure every point on, comma-separated names from `moesweep engine "
               "list` (default: this moesweep's own); interleaved repetition by repetition: ABBA for two, a "
               "random order each round for more",
       .level = L::kEngine, .member = &S::engines, .parse = p::engines, .json = "engines",
       .json_when_set = true},
      {.key = "twin-for", .cli_names = "--twin-for",
       .help = "registered engines the twin must load too, not measured: its layout is the newest these "
               "and the sweep's engines all read (history and bisect: every release measures one twin)",
       .level = L::kTwin, .member = &S::twin_for, .parse = p::twin_for, .json = "twin_for",
       .json_when_set = true},
      // ik_llama.cpp's own switches (engine/engine_knobs.hpp): they reach only the sweep's
      // ik_llama.cpp engines, and a sweep without one refuses them; in the JSON as one
      // "engine_opts", only when one is set
      {.key = "fused-moe", .cli_names = "--fused-moe", .llama_alias = "-fmoe",
       .help = "ik_llama.cpp only: fused MoE up/gate, 0 or 1 (the engine's default: 1)",
       .level = L::kEngine, .parse = p::fused_moe, .write = p::write_engine_opts},
      {.key = "run-time-repack", .cli_names = "--run-time-repack", .llama_alias = "-rtr",
       .help = "ik_llama.cpp only: repack the weights at load, 0 or 1 (1 loads without mmap)",
       .level = L::kEngine, .parse = p::run_time_repack},
      {.key = "mla-use", .cli_names = "--mla-use", .llama_alias = "-mla",
       .help = "ik_llama.cpp only: MLA implementation 0-3 (default 3)", .level = L::kEngine,
       .parse = p::mla_use},
      {.key = "attention-max-batch", .cli_names = "--attention-max-batch", .llama_alias = "-amb",
       .help = "ik_llama.cpp only: attention's largest batch in MiB, 0 = no limit (default 256)",
       .level = L::kEngine, .parse = p::attention_max_batch},
      // run
      {.key = "counters", .cli_names = "--counters",
       .help = "counters: auto, perf, likwid, none; sim = instructions and simulated cache misses under "
               "valgrind (one thread, about 100x slower)",
       .member = &S::counters, .json = "counters"},
      {.key = "sim-cache", .cli_names = "--sim-cache",
       .help = "the caches --counters sim simulates, e.g. 'LL=512MiB,16 D1=48KiB,12' (default LL 32 MiB "
               "16-way, D1 and I1 32 KiB 8-way, 64-byte lines)",
       .member = &S::sim_cache, .check = p::check_sim_counters, .json = "sim_cache",
       .json_when_set = true},
      {.key = "sim-per-token", .cli_names = "--sim-per-token",
       .help = "with --counters sim: a callgrind dump per generated token, its simulated counts in "
               "tokens.jsonl (for `moesweep l3 RUN --per-token`)",
       .kind = K::kSwitch, .member = &S::sim_per_token, .check = p::check_sim_counters,
       .json = "sim_per_token",
       .json_when_set = true},
      {.key = "sim-keep-dumps", .cli_names = "--sim-keep-dumps",
       .help = "with --counters sim: keep callgrind's dump of each timed phase in the run's "
               "callgrind/ folder (per function: callgrind_annotate FILE)",
       .kind = K::kSwitch, .member = &S::sim_keep_dumps, .check = p::check_sim_counters,
       .json = "sim_keep_dumps",
       .json_when_set = true},
      {.key = "allow-oversubscribe", .cli_names = "--allow-oversubscribe",
       .help = "allow more threads than logical CPUs", .kind = K::kSwitch,
       .member = &S::allow_oversubscribe, .json = "allow_oversubscribe"},
  });
  // clang-format on
  return table;
}

const SweepSetting* find_sweep_setting(const std::string& key) {
  return sweep_settings().find(key);
}

const char* setting_level_name(SettingLevel level) {
  switch (level) {
    case SettingLevel::kRun:
      return "run";
    case SettingLevel::kTwin:
      return "twin";
    case SettingLevel::kModel:
      return "model";
    case SettingLevel::kContext:
      return "context";
    case SettingLevel::kThread:
      return "thread";
    case SettingLevel::kWalk:
      return "walk";
    case SettingLevel::kEngine:
      return "engine";
  }
  return "?";
}

}  // namespace moesweep
