#include "sweep/sweep_settings.hpp"

#include "model/shape_flags.hpp"

namespace moesweep {
namespace {

// The table: `before`, the twin's shape flags (model/shape_flags.hpp, the one
// list synth, trace and serve-bench use too), then `after`.
std::vector<SweepSetting> around_shape_flags(std::vector<SweepSetting> before,
                                             const std::vector<SweepSetting>& after) {
  for (const ShapeFlag& f : twin_shape_flags())
    before.push_back(
        {f.key, f.flag, nullptr, f.sweep_help(), SettingKind::kValue, SettingLevel::kTwin});
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

}  // namespace

const std::vector<SweepSetting>& sweep_settings() {
  using K = SettingKind;
  using L = SettingLevel;
  // clang-format off
  static const std::vector<SweepSetting> table = around_shape_flags({
      {"name", "--name", nullptr, "run name (default: the profile's or 'adhoc')", K::kValue, L::kRun},
      {"description", nullptr, nullptr, "what the profile is for (profiles only)", K::kProfileOnly, L::kRun},
      // the models and their twins
      {"model", "-m,--model", nullptr,
       "GGUF file(s) or twin profile name(s), comma-separated (default kimi-k2.5 twin)", K::kValue, L::kTwin},
      {"quant", "-q,--quant", nullptr, "twin quant type(s): Q4_K_S,Q4_K_M,Q6_K,Q8_0,F16,...", K::kValue, L::kTwin},
      {"scale", "--scale", nullptr, "twin size preset: tiny, small, full", K::kValue, L::kTwin},
      {"seed", "--seed", nullptr, "twin weight seed", K::kValue, L::kTwin},
  }, {  // after the shape flags (layers, hidden, ..., experts, expert-ff)
      {"routing-skew", "--routing-skew", nullptr,
       "twin axis: Zipf exponent s of expert popularity, (e+1)^-s (0 = the twin's random routing)",
       K::kValue, L::kTwin},
      {"blocks", "--blocks", nullptr,
       "measure every model group in N blocks, each block in its own random order (interleaved "
       "twins: drift and neighbours spread over all of them)", K::kValue, L::kModel},
      {"block-seed", "--block-seed", nullptr, "seed of the block orders (--blocks)", K::kValue,
       L::kModel},
      // model level
      {"load-mode", "--load-mode", "-lm",
       "how the engine loads the model (-lm): auto, none, mmap, mlock, mmap+mlock, dio (default auto)",
       K::kValue, L::kModel},
      {"mmap", "--mmap", "-mmp", "older spelling (-mmp): on = -lm mmap, off = -lm none", K::kValue, L::kModel},
      {"mlock", "--mlock", nullptr, "older spelling: lock the model in RAM (= -lm mmap+mlock)", K::kSwitch, L::kModel},
      {"n-gpu-layers", "--n-gpu-layers", "-ngl",
       "layers to offload (-ngl; default -1 = all, as llama-bench; a CPU build keeps them on CPU)",
       K::kValue, L::kModel},
      {"override-tensor", "--override-tensor", "-ot", "tensor buffer override (-ot), e.g. exps=CPU",
       K::kRepeated, L::kModel},
      {"n-cpu-moe", "--n-cpu-moe", "-ncmoe", "keep the experts of the first N layers on CPU (axis)",
       K::kValue, L::kModel},
      {"l3-ways", "--l3-ways", nullptr,
       "L3 ways the run's threads may fill (axis; resctrl L3 cache allocation, bare metal only)",
       K::kValue, L::kModel},
      {"mem-bw-percent", "--mem-bw-percent", nullptr,
       "memory bandwidth allocation in percent (axis; resctrl MBA, bare metal only)", K::kValue,
       L::kModel},
      {"numa", "--numa", nullptr, "NUMA strategy: disabled, distribute, isolate, numactl", K::kValue, L::kModel},
      // context level
      {"ctx-size", "-c,--ctx-size", nullptr,
       "context size(s) (default: deepest depth + PP + TG as llama-bench; 4096 for the open walk)",
       K::kValue, L::kContext},
      {"batch-size", "-b,--batch-size", nullptr, "logical batch size(s)", K::kValue, L::kContext},
      {"ubatch-size", "--ubatch-size", "-ub", "physical batch size(s) (-ub)", K::kValue, L::kContext},
      {"cache-type-k", "--cache-type-k", "-ctk", "K cache type(s) (-ctk): f16, q8_0, q4_0, ...",
       K::kValue, L::kContext},
      {"cache-type-v", "--cache-type-v", "-ctv",
       "V cache type(s) (-ctv); quantized V needs -fa on or auto", K::kValue, L::kContext},
      {"flash-attn", "--flash-attn", "-fa",
       "flash attention (-fa): auto, on, off or a list (default auto)", K::kValue, L::kContext},
      // thread level
      {"threads", "-t,--threads", nullptr, "threads for generation: 16,14,13,12 or 12-16", K::kValue, L::kThread},
      {"threads-batch", "--threads-batch", "-tb", "threads for prefill (-tb), default = --threads",
       K::kValue, L::kThread},
      {"cpu-mask", "-C,--cpu-mask", nullptr, "CPU mask(s): 0xffff or 0-15 (';' between alternatives)",
       K::kValue, L::kThread},
      {"cpu-strict", "--cpu-strict", nullptr, "strict CPU placement", K::kSwitch, L::kThread},
      {"poll", "--poll", nullptr, "threadpool polling level 0-100", K::kValue, L::kThread},
      {"cotenant", "--cotenant", nullptr,
       "load on the CPUs a point leaves free while it is timed (axis): none, stream, compute, "
       "cmd:\"COMMAND\"", K::kValue, L::kThread},
      {"cotenant-cpus", "--cotenant-cpus", nullptr,
       "CPUs of the co-tenant (default: those the point's -C mask leaves free)", K::kValue,
       L::kThread},
      // the walk and the measurement
      {"depths", "-d,--depths,--n-depth", nullptr,
       "N_KV depths: 0,512,1024 or 0-8192+1024 (default: sweep-bench walk)", K::kValue, L::kWalk},
      {"depth-step", "--depth-step", nullptr, "depth step (default: ubatch)", K::kValue, L::kWalk},
      {"depth-max", "--depth-max", nullptr, "deepest N_KV (default: as deep as ctx allows)", K::kValue, L::kWalk},
      {"n-prompt", "-p,--n-prompt", nullptr, "PP tokens per measurement (default: one ubatch)", K::kValue, L::kWalk},
      {"n-gen", "-n,--n-gen", nullptr, "TG tokens per measurement", K::kValue, L::kWalk},
      {"repetitions", "-r,--repetitions", nullptr, "repetitions per point (the minimum with --target-ci)",
       K::kValue, L::kWalk},
      {"target-ci", "--target-ci", nullptr,
       "repeat each point until the 95% CI half-width of its mean speed is within this percent",
       K::kValue, L::kWalk},
      {"target-mde", "--target-mde", nullptr,
       "repeat until every compared cell's minimum detectable effect (compare's default test, "
       "90% power, Holm over the cells) is within this percent; engines stay interleaved",
       K::kValue, L::kWalk},
      {"max-repetitions", "--max-repetitions", nullptr,
       "most repetitions per point with --target-ci or --target-mde (20)", K::kValue, L::kWalk},
      {"max-time", "--max-time", nullptr,
       "seconds after which no point takes repetitions beyond -r (--target-ci, --target-mde); "
       "each cell gets a fair share of what is left (0 = no limit)",
       K::kValue, L::kWalk},
      {"min-sample-time", "--min-sample-time", nullptr,
       "seconds each sample lasts at least: the call of -n (-p) tokens is repeated at its depth "
       "until it does (default: where this machine's noise profile, `moesweep hw --noise`, "
       "stops falling; 0 = one call, the plan's -n)",
       K::kValue, L::kWalk},
      {"token-seed", "--token-seed", nullptr, "seed of the random prompt tokens", K::kValue, L::kWalk},
      {"point-timeout", "--point-timeout", nullptr,
       "seconds one engine call may take (loading the model, making a context, each call of a "
       "point) before the engine counts as hung and its points fail (default 1800; 0 = no limit)",
       K::kValue, L::kWalk},
      // engines (issue 19)
      {"engine", "--engine", nullptr,
       "engine build(s) to measure every point on, comma-separated names from `moesweep engine "
       "list` (default: this moesweep's own); interleaved repetition by repetition in ABBA order",
       K::kValue, L::kEngine},
      // ik_llama.cpp's own switches (engine/engine_knobs.hpp): they reach only the sweep's
      // ik_llama.cpp engines, and a sweep without one refuses them
      {"fused-moe", "--fused-moe", "-fmoe",
       "ik_llama.cpp only: fused MoE up/gate, 0 or 1 (the engine's default: 1)", K::kValue, L::kEngine},
      {"run-time-repack", "--run-time-repack", "-rtr",
       "ik_llama.cpp only: repack the weights at load, 0 or 1 (1 loads without mmap)", K::kValue,
       L::kEngine},
      {"mla-use", "--mla-use", "-mla", "ik_llama.cpp only: MLA implementation 0-3 (default 3)",
       K::kValue, L::kEngine},
      {"attention-max-batch", "--attention-max-batch", "-amb",
       "ik_llama.cpp only: attention's largest batch in MiB, 0 = no limit (default 256)", K::kValue,
       L::kEngine},
      // run
      {"counters", "--counters", nullptr,
       "counters: auto, perf, likwid, none; sim = instructions and simulated cache misses under "
       "valgrind (one thread, about 100x slower)", K::kValue, L::kRun},
      {"sim-cache", "--sim-cache", nullptr,
       "the caches --counters sim simulates, e.g. 'LL=512MiB,16 D1=48KiB,12' (default LL 32 MiB "
       "16-way, D1 and I1 32 KiB 8-way, 64-byte lines)", K::kValue, L::kRun},
      {"allow-oversubscribe", "--allow-oversubscribe", nullptr, "allow more threads than logical CPUs",
       K::kSwitch, L::kRun},
  });
  // clang-format on
  return table;
}

const SweepSetting* find_sweep_setting(const std::string& key) {
  for (const SweepSetting& s : sweep_settings())
    if (key == s.key) return &s;
  return nullptr;
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
