#include "sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "counters/sim_cache.hpp"
#include "engine/context_rules.hpp"
#include "engine/engine_registry.hpp"
#include "model/twin_routing.hpp"
#include "results/record.hpp"
#include "sweep/cotenant.hpp"
#include "sweep/spec_limits.hpp"
#include "sweep/sweep_settings.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/parse_list.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

// The engine's llama_load_mode names (llama-bench -lm).
const std::vector<std::string> kLoadModes = {"auto", "none", "mmap", "mlock", "mmap+mlock", "dio"};

// A setting as text: numbers, bools and arrays are joined the way a flag is written.
std::string as_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) parts.push_back(as_text(e));
    return fmt::format("{}", fmt::join(parts, ","));
  }
  return v.dump();
}

// --counters sim: valgrind runs one thread at a time and ggml's threads spin
// while they wait, so two runs at -t 2 counted 1.5% apart (docs/counters.md);
// exact counts need one thread, for generation and for batches alike.
void check_sim_counters(const SweepSpec& spec, const std::string& counters_flag,
                        const std::string& cache_flag) {
  if (spec.counters != "sim") {
    if (!spec.sim_cache.empty())
      throw UserError(fmt::format("{} is set but the counters are '{}'", cache_flag, spec.counters),
                      "--sim-cache only with --counters sim",
                      "add --counters sim, or drop --sim-cache");
    return;
  }
  counters::parse_sim_cache(spec.sim_cache, cache_flag);
  for (const std::vector<int>* list : {&spec.threads, &spec.threads_batch})
    for (int t : *list)
      if (t > 1)
        throw UserError(
            fmt::format("{}: sim counts are exact at one thread only, and {} threads are asked for",
                        counters_flag, t),
            "-t 1 (and -tb 1) with --counters sim",
            "use -t 1: under valgrind ggml's threads spin while they wait and two runs at -t 2 "
            "counted 1.5% apart; for threads, use wall time or hardware counters");
}

class Settings {
 public:
  Settings(const std::map<std::string, nlohmann::json>& s, std::string origin)
      : s_(s), origin_(std::move(origin)) {}
  bool has(const std::string& key) const { return s_.count(key) > 0; }
  std::string text(const std::string& key) const { return as_text(s_.at(key)); }
  std::string flag(const std::string& key) const { return fmt::format("{} (--{})", origin_, key); }

  std::vector<int> ints(const std::string& key, std::vector<int> fallback, int min_value) const {
    if (!has(key)) return fallback;
    std::vector<int64_t> values;
    try {
      values = parse_int_list(text(key), "--" + key);
    } catch (const UserError& e) {  // the fix names the bare flag, the problem the origin
      throw UserError(fmt::format("{}: {}", origin_, e.problem()), e.expected(), e.fix());
    }
    const ValueLimit limit = value_limit(key);
    std::vector<int> out;
    for (int64_t v : values) {
      if (v < min_value) {
        throw UserError(fmt::format("{}: value {} is too small", flag(key), v),
                        fmt::format("values >= {}", min_value), fmt::format("fix --{}", key));
      }
      if (v > limit.max) {
        throw UserError(fmt::format("{}: value {} is too large", flag(key), v),
                        fmt::format("values <= {} ({})", limit.max, limit.why),
                        fmt::format("lower --{}", key));
      }
      out.push_back(static_cast<int>(v));
    }
    return out;
  }
  int one_int(const std::string& key, int fallback, int min_value) const {
    const auto v = ints(key, {fallback}, min_value);
    if (v.size() != 1) {
      throw UserError(fmt::format("{}: takes one value, got {}", flag(key), v.size()),
                      "a single number", fmt::format("give --{} one value", key));
    }
    return v[0];
  }
  double one_number(const std::string& key, double fallback, double min_value) const {
    if (!has(key)) return fallback;
    const std::string t = text(key);
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != t.size() || !(v >= min_value) || !std::isfinite(v)) {
      throw UserError(fmt::format("{}: '{}' is not a number >= {}", flag(key), t, min_value),
                      fmt::format("one number >= {}, e.g. 2", min_value),
                      fmt::format("fix --{}", key));
    }
    return v;
  }
  // A list of numbers ("0,0.5,1.5"), each in [min_value, max_value].
  std::vector<double> numbers(const std::string& key, double min_value, double max_value) const {
    std::vector<double> out;
    if (!has(key)) return out;
    for (const std::string& w : words(key, {})) {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(w, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != w.size() || !(v >= min_value && v <= max_value)) {
        throw UserError(
            fmt::format("{}: '{}' is not a number from {} to {}", flag(key), w, min_value,
                        max_value),
            fmt::format("numbers from {} to {}, e.g. 0,0.5,1,1.5", min_value, max_value),
            fmt::format("fix --{}", key));
      }
      out.push_back(v);
    }
    return out;
  }
  // A list of words; given but empty ("-m ''") is refused, never an empty axis.
  std::vector<std::string> words(const std::string& key, std::vector<std::string> fallback,
                                 char sep = ',') const {
    if (!has(key)) return fallback;
    std::vector<std::string> out;
    const nlohmann::json& v = s_.at(key);
    for (const auto& e : v.is_array() ? v : nlohmann::json::array({v}))
      for (std::string& w : split_list(as_text(e), sep)) out.push_back(std::move(w));
    if (out.empty()) {
      throw UserError(fmt::format("{}: no value given", flag(key)), "at least one value",
                      fmt::format("give --{} a value, or leave it out for the default", key));
    }
    return out;
  }
  bool boolean(const std::string& key, bool fallback) const {
    return has(key) ? boolean_word(text(key), key) : fallback;
  }
  // parse_bool_word's fix repeats the flag name ("write --fa on"): give it the
  // bare flag and put the origin in front of the problem only.
  bool boolean_word(const std::string& word, const std::string& key) const {
    try {
      return parse_bool_word(word, "--" + key);
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", origin_, e.problem()), e.expected(), e.fix());
    }
  }

 private:
  const std::map<std::string, nlohmann::json>& s_;
  std::string origin_;
};

void check_cache_types(const std::vector<std::string>& types, const std::string& flag) {
  for (const std::string& t : types)
    if (!is_kv_cache_type(t)) {
      throw UserError(fmt::format("{}: unknown KV cache type '{}'", flag, t),
                      fmt::format("one of {}", fmt::join(kv_cache_type_names(), ", ")),
                      "use e.g. -ctk q8_0 -ctv q8_0");
    }
}

// llama-bench's -fa words (common_arg_utils' truthy/falsey/autoy ones):
// -1 auto, 0 off, 1 on, as llama_flash_attn_type numbers them.
int flash_attn_word(const std::string& w, const std::string& flag) {
  if (w == "auto" || w == "-1") return -1;
  if (w == "on" || w == "1" || w == "true" || w == "enabled" || w == "yes") return 1;
  if (w == "off" || w == "0" || w == "false" || w == "disabled" || w == "no") return 0;
  throw UserError(fmt::format("{}: '{}' is not on, off or auto", flag, w),
                  "auto, on, off (or -1, 1, 0 as llama-bench writes them)",
                  "write --flash-attn auto, --flash-attn on or --flash-attn off");
}

// -lm/--load-mode, or the older --mmap on/off and --mlock it replaces (kept
// as aliases: mmap was on by default, so --mlock alone means mmap+mlock).
std::string load_mode_setting(const Settings& s) {
  const bool legacy = s.has("mmap") || s.has("mlock");
  if (s.has("load-mode") && legacy) {
    throw UserError(
        fmt::format("{}: --load-mode given together with --mmap/--mlock", s.flag("load-mode")),
        "one way to say how the model is loaded", "keep only --load-mode (-lm)");
  }
  if (legacy) return load_mode_of(s.boolean("mmap", true), s.boolean("mlock", false));
  const std::string mode = s.has("load-mode") ? s.text("load-mode") : "auto";
  if (std::find(kLoadModes.begin(), kLoadModes.end(), mode) == kLoadModes.end()) {
    throw UserError(
        fmt::format("{}: unknown load mode '{}'", s.flag("load-mode"), mode),
        fmt::format("one of {} (the engine's llama-bench -lm)", fmt::join(kLoadModes, ", ")),
        "write e.g. -lm mmap");
  }
  return mode;
}

// --experts (a list, or auto-l3:LO-HI), --expert-ff, --routing-skew.
void twin_axes_from(const Settings& s, SweepSpec& spec) {
  if (s.has("experts") && is_experts_auto_l3(s.text("experts"))) {
    spec.twin_experts_auto = parse_experts_auto_l3(s.text("experts"), s.flag("experts"));
  } else {
    spec.twin_experts = s.ints("experts", {}, 1);
  }
  spec.twin_expert_ff = s.ints("expert-ff", {}, 1);
  spec.routing_skew = s.numbers("routing-skew", 0, kMaxRoutingSkew);
}

}  // namespace

const std::vector<std::string>& known_sweep_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const SweepSetting& s : sweep_settings()) out.push_back(s.key);
    return out;
  }();
  return keys;
}

namespace {

// Every key is a setting of the table (a typo in a profile is an error, not ignored).
void check_known_settings(const std::map<std::string, nlohmann::json>& settings,
                          const std::string& origin) {
  for (const auto& [key, value] : settings) {
    const auto& keys = known_sweep_keys();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      throw UserError(fmt::format("{}: unknown setting '{}'", origin, key),
                      fmt::format("one of {}", fmt::join(keys, ", ")),
                      "remove it or correct its spelling (profile keys are the flags' long names)");
    }
  }
}

// The model level: name, twins and their knobs, the models, how they load.
void model_settings_from(const Settings& s, SweepSpec& spec) {
  if (s.has("name")) spec.name = s.text("name");
  spec.twin_scale = s.has("scale") ? s.text("scale") : spec.twin_scale;
  spec.twin_seed = static_cast<uint64_t>(s.one_int("seed", 42, 0));
  ShapeOverrides& o = spec.twin_overrides;
  o.layers = s.one_int("layers", 0, 1);
  o.hidden = s.one_int("hidden", 0, 1);
  o.heads = s.one_int("heads", 0, 1);
  o.dense_ff = s.one_int("dense-ff", 0, 1);
  o.vocab = s.one_int("vocab", 0, 1);
  o.experts_used = s.one_int("experts-used", 0, 1);
  twin_axes_from(s, spec);
  spec.blocks = s.one_int("blocks", 1, 1);
  if (spec.blocks > kMaxBlocks)
    throw UserError(fmt::format("{} {} is too many blocks", s.flag("blocks"), spec.blocks),
                    fmt::format("at most {} (each block loads every model once)", kMaxBlocks),
                    "use fewer blocks and more --repetitions");
  spec.block_seed = static_cast<uint64_t>(s.one_int("block-seed", 1, 0));

  const std::vector<std::string> quants = s.words("quant", {"Q4_K_S"});
  for (const std::string& m : s.words("model", {"kimi-k2.5"})) {
    const bool is_file = m.find(".gguf") != std::string::npos || m.find('/') != std::string::npos;
    if (is_file) {
      spec.models.push_back({m, "", ""});
    } else {
      for (const std::string& q : quants) spec.models.push_back({"", m, q});
    }
  }
  spec.load_mode = load_mode_setting(s);
  spec.n_gpu_layers = s.one_int("n-gpu-layers", -1, -1);
  if (s.has("override-tensor")) spec.tensor_overrides = split_list(s.text("override-tensor"), ';');
  for (const std::string& ot : spec.tensor_overrides)
    if (ot.find('=') == std::string::npos) {
      throw UserError(
          fmt::format("{}: tensor override '{}' has no '='", s.flag("override-tensor"), ot),
          "pattern=BUFFER_TYPE, e.g. exps=CPU", "write -ot exps=CPU");
    }
  spec.n_cpu_moe = s.ints("n-cpu-moe", {}, 0);
  spec.l3_ways = s.ints("l3-ways", {}, 1);
  spec.mem_bw_percent = s.ints("mem-bw-percent", {}, 1);
  spec.numa = s.has("numa") ? s.text("numa") : "disabled";
  if (spec.numa != "disabled" && spec.numa != "distribute" && spec.numa != "isolate" &&
      spec.numa != "numactl") {
    throw UserError(fmt::format("{}: unknown NUMA strategy '{}'", s.flag("numa"), spec.numa),
                    "disabled, distribute, isolate or numactl", "pick one of those");
  }
}

}  // namespace

namespace {

// --engine a,b: names (engine/engine_registry.hpp), each once; resolved to
// workers by the plan.
std::vector<std::string> engine_list(const Settings& s) {
  std::vector<std::string> names = s.words("engine", {});
  for (size_t i = 0; i < names.size(); ++i) {
    check_engine_name(names[i], s.flag("engine"));
    for (size_t j = 0; j < i; ++j)
      if (names[j] == names[i])
        throw UserError(fmt::format("{}: engine '{}' is named twice", s.flag("engine"), names[i]),
                        "each engine once", "remove the repeated name");
  }
  return names;
}

// ik_llama.cpp's switches, -1 where not given (engine/engine_knobs.hpp).
EngineKnobs engine_knobs(const Settings& s) {
  EngineKnobs k;
  if (s.has("fused-moe")) k.fused_moe = s.boolean("fused-moe", false) ? 1 : 0;
  if (s.has("run-time-repack")) k.repack = s.boolean("run-time-repack", false) ? 1 : 0;
  if (s.has("mla-use")) {
    k.mla = s.one_int("mla-use", 3, 0);
    if (k.mla > 3)
      throw UserError(fmt::format("{}: {} is not an MLA implementation", s.flag("mla-use"), k.mla),
                      "0, 1, 2 or 3 (ik_llama.cpp's -mla)", "give -mla 0..3");
  }
  if (s.has("attention-max-batch")) k.attn_max_batch = s.one_int("attention-max-batch", 0, 0);
  return k;
}

}  // namespace

SweepSpec spec_from_settings(const std::map<std::string, nlohmann::json>& settings,
                             const std::string& origin) {
  check_known_settings(settings, origin);
  const Settings s(settings, origin);
  SweepSpec spec;
  model_settings_from(s, spec);
  spec.n_ctx = s.ints("ctx-size", {}, 64);
  spec.n_batch = s.ints("batch-size", {2048}, 1);
  spec.n_ubatch = s.ints("ubatch-size", {512}, 1);
  spec.type_k = s.words("cache-type-k", {"f16"});
  spec.type_v = s.words("cache-type-v", {"f16"});
  check_cache_types(spec.type_k, s.flag("cache-type-k"));
  check_cache_types(spec.type_v, s.flag("cache-type-v"));
  spec.flash_attn.clear();
  for (const std::string& w : s.words("flash-attn", {"auto"}))
    spec.flash_attn.push_back(flash_attn_word(w, s.flag("flash-attn")));
  spec.threads = s.ints("threads", {1}, 1);
  spec.threads_batch = s.ints("threads-batch", {}, 1);
  // ';' between alternatives: a mask is itself a list ("0-3,8-11").
  spec.cpu_masks = s.words("cpu-mask", {""}, ';');
  spec.cpu_strict = s.boolean("cpu-strict", false);
  spec.poll = s.one_int("poll", 50, 0);
  if (s.has("cotenant"))
    spec.cotenants = parse_cotenant_list(s.text("cotenant"), s.flag("cotenant"));
  if (s.has("cotenant-cpus")) spec.cotenant_cpus = s.text("cotenant-cpus");
  spec.depths = s.ints("depths", {}, 0);
  spec.depth_step = s.one_int("depth-step", 0, 0);
  spec.depth_max = s.one_int("depth-max", -1, -1);
  spec.n_prompt = s.one_int("n-prompt", 0, 0);
  spec.n_gen = s.one_int("n-gen", 32, 0);
  spec.repetitions = s.one_int("repetitions", 3, 1);
  spec.target_ci_pct = s.one_number("target-ci", 0, 0);
  spec.target_mde_pct = s.one_number("target-mde", 0, 0);
  if (spec.target_mde_pct >= 100)
    throw UserError(fmt::format("{}: {} is not a percentage below 100", s.flag("target-mde"),
                                spec.target_mde_pct),
                    "the smallest slowdown to detect, in percent, e.g. 5",
                    fmt::format("pass {} 5", s.flag("target-mde")));
  spec.max_time_s = s.one_number("max-time", 0, 0);
  if (s.has("min-sample-time")) {
    spec.min_sample_time_s = s.one_number("min-sample-time", 0, 0);
    if (spec.min_sample_time_s > kMaxMinSampleTime)
      throw UserError(fmt::format("{}: {:g} s is longer than a sample may be",
                                  s.flag("min-sample-time"), spec.min_sample_time_s),
                      fmt::format("0 to {:g} seconds", kMaxMinSampleTime),
                      fmt::format("pass {} 1", s.flag("min-sample-time")));
  }
  spec.max_repetitions = s.one_int("max-repetitions", std::max(20, spec.repetitions), 1);
  if (spec.max_repetitions < spec.repetitions) {
    throw UserError(fmt::format("{}: {} is below --repetitions {}", s.flag("max-repetitions"),
                                spec.max_repetitions, spec.repetitions),
                    "--max-repetitions >= --repetitions (-r is the minimum)",
                    "raise --max-repetitions or lower -r");
  }
  spec.token_seed = static_cast<uint64_t>(s.one_int("token-seed", 1234, 0));
  spec.point_timeout_s = s.one_number("point-timeout", 1800, 0);
  spec.counters = s.has("counters") ? s.text("counters") : "auto";
  if (s.has("sim-cache")) spec.sim_cache = s.text("sim-cache");
  check_sim_counters(spec, s.flag("counters"), s.flag("sim-cache"));
  spec.engines = engine_list(s);
  spec.engine_knobs = engine_knobs(s);
  spec.allow_oversubscribe = s.boolean("allow-oversubscribe", false);
  if (spec.n_prompt == 0 && spec.n_gen == 0) {
    throw UserError(fmt::format("{}: both --n-prompt and --n-gen are 0", origin),
                    "something to measure", "give -n 32 or leave --n-prompt unset (one ubatch)");
  }
  check_spec_limits(spec, s.has("ctx-size") && s.has("batch-size"), origin);
  return spec;
}

std::vector<int> SweepSpec::ctx_for(int ubatch) const {
  if (!n_ctx.empty()) return n_ctx;
  const int pp = n_prompt > 0 ? n_prompt : ubatch;
  int64_t deepest = -1;
  if (!depths.empty()) {
    deepest = *std::max_element(depths.begin(), depths.end());
  } else if (depth_max >= 0) {
    const int step = depth_step > 0 ? depth_step : ubatch;
    deepest = depth_max / step * step;  // the walk's last depth
  }
  if (deepest < 0) return {kDefaultCtx};
  // Never below the engine's smallest useful context; the plan refuses what overflows int.
  const int64_t need = deepest + pp + n_gen;
  return {static_cast<int>(std::clamp<int64_t>(need, 64, INT32_MAX))};
}

std::vector<int> SweepSpec::depths_for(int ctx, int ubatch) const {
  if (!depths.empty()) return depths;
  const int pp = n_prompt > 0 ? n_prompt : ubatch;
  const int step = depth_step > 0 ? depth_step : ubatch;
  const int room = ctx - pp - n_gen;  // the deepest depth that still fits
  const int last = depth_max >= 0 ? std::min(depth_max, room) : room;
  std::vector<int> out;
  for (int d = 0; d <= last; d += step) {
    if (out.size() >= kMaxListValues) {
      throw UserError(fmt::format("the walk to depth {} in steps of {} has more than {} depths",
                                  last, step, kMaxListValues),
                      fmt::format("at most {} depths per context", kMaxListValues),
                      "raise --depth-step, lower --depth-max, or give --depths explicitly");
    }
    out.push_back(d);
  }
  if (out.empty()) out.push_back(0);  // the plan reports why it does not fit
  return out;
}

nlohmann::json SweepSpec::to_json() const {
  nlohmann::json models_json = nlohmann::json::array();
  for (const ModelChoice& m : models)
    models_json.push_back({{"file", m.file}, {"twin_profile", m.twin_profile}, {"quant", m.quant}});
  nlohmann::json j = {
      {"name", name},
      {"models", models_json},
      {"twin_scale", twin_scale},
      {"twin_seed", twin_seed},
      {"twin_experts", twin_experts},
      {"twin_experts_auto_l3", twin_experts_auto.on()
                                   ? nlohmann::json{twin_experts_auto.lo, twin_experts_auto.hi}
                                   : nlohmann::json(nullptr)},
      {"twin_expert_ff", twin_expert_ff},
      {"routing_skew", routing_skew},
      {"load_mode", load_mode},
      {"n_gpu_layers", n_gpu_layers},
      {"tensor_overrides", tensor_overrides},
      {"n_cpu_moe", n_cpu_moe},
      {"l3_ways", l3_ways},
      {"mem_bw_percent", mem_bw_percent},
      {"numa", numa},
      {"n_ctx", n_ctx},
      {"n_batch", n_batch},
      {"n_ubatch", n_ubatch},
      {"type_k", type_k},
      {"type_v", type_v},
      {"flash_attn", flash_attn},
      {"threads", threads},
      {"threads_batch", threads_batch},
      {"cpu_masks", cpu_masks},
      {"cpu_strict", cpu_strict},
      {"poll", poll},
      {"depths", depths},
      {"depth_step", depth_step},
      {"depth_max", depth_max},
      {"n_prompt", n_prompt},
      {"n_gen", n_gen},
      {"repetitions", repetitions},
      {"target_ci_pct", target_ci_pct},
      {"max_repetitions", max_repetitions},
      {"token_seed", token_seed},
      {"counters", counters},
      {"allow_oversubscribe", allow_oversubscribe}};
  if (!sim_cache.empty()) j["sim_cache"] = sim_cache;
  // Only when used: the plans (and plan ids) of sweeps without it stay as they were.
  if (target_mde_pct > 0) j["target_mde_pct"] = target_mde_pct;
  if (max_time_s > 0) j["max_time_s"] = max_time_s;
  // As given: the noise profile's default is the run's (meta.json "sample_length"), not the plan's.
  if (min_sample_time_s >= 0) j["min_sample_time_s"] = min_sample_time_s;
  if (cotenants != std::vector<std::string>{""}) j["cotenants"] = cotenants;
  if (!cotenant_cpus.empty()) j["cotenant_cpus"] = cotenant_cpus;
  if (point_timeout_s != SweepSpec{}.point_timeout_s) j["point_timeout_s"] = point_timeout_s;
  if (!engines.empty()) j["engines"] = engines;
  if (engine_knobs.any()) j["engine_opts"] = knobs_text(engine_knobs);
  return j;
}

std::map<std::string, nlohmann::json> load_sweep_profile(const std::string& name_or_path,
                                                         std::string* origin) {
  std::filesystem::path path = name_or_path;
  if (!std::filesystem::exists(path)) path = profiles_dir() / "sweeps" / (name_or_path + ".json");
  if (!std::filesystem::exists(path)) {
    throw UserError(fmt::format("unknown sweep profile '{}'", name_or_path),
                    "a name from profiles/sweeps (see `moesweep list`) or a JSON file path",
                    "check the spelling or the path");
  }
  const nlohmann::json j = read_json_file(path, "sweep profile");
  if (!j.is_object()) {
    throw UserError(fmt::format("sweep profile '{}' is not a JSON object", path.string()),
                    "{\"threads\": \"16,14,13,12\", ...}", "see profiles/sweeps/default.json");
  }
  if (origin) *origin = path.string();
  std::map<std::string, nlohmann::json> out;
  for (auto& [k, v] : j.items()) out[k] = v;
  return out;
}

}  // namespace moesweep
