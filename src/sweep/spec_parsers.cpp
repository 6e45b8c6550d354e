#include "sweep/spec_parsers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "counters/sim_cache.hpp"
#include "engine/context_rules.hpp"
#include "engine/engine_registry.hpp"
#include "model/twin_routing.hpp"
#include "results/record.hpp"
#include "sweep/cotenant.hpp"
#include "sweep/spec_limits.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep::spec_parsers {
namespace {

// The engine's llama_load_mode names (llama-bench -lm).
const std::vector<std::string> kLoadModes = {"auto", "none", "mmap", "mlock", "mmap+mlock", "dio"};

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

void check_cache_types(const std::vector<std::string>& types, const std::string& flag) {
  for (const std::string& t : types)
    if (!is_kv_cache_type(t)) {
      throw UserError(fmt::format("{}: unknown KV cache type '{}'", flag, t),
                      fmt::format("one of {}", fmt::join(kv_cache_type_names(), ", ")),
                      "use e.g. -ctk q8_0 -ctv q8_0");
    }
}

// ik_llama.cpp's 0/1 switches: -1 (the engine's default) when not given.
int switch_knob(const SettingsReader& s, const char* key) {
  return s.has(key) ? (s.boolean(key, false) ? 1 : 0) : -1;
}

}  // namespace

void models(const SettingsReader& s, SweepSpec& spec) {
  const std::vector<std::string> quants = s.words("quant", {"Q4_K_S"});
  for (const std::string& m : s.words("model", {"kimi-k2.5"})) {
    const bool is_file = m.find(".gguf") != std::string::npos || m.find('/') != std::string::npos;
    if (is_file) {
      spec.models.push_back({m, "", ""});
    } else {
      for (const std::string& q : quants) spec.models.push_back({"", m, q});
    }
  }
}

void experts(const SettingsReader& s, SweepSpec& spec) {
  if (s.has("experts") && is_experts_auto_l3(s.text("experts")))
    spec.twin_experts_auto = parse_experts_auto_l3(s.text("experts"), s.flag("experts"));
  else
    spec.twin_experts = s.ints("experts", {}, 1);
}

void routing_skew(const SettingsReader& s, SweepSpec& spec) {
  spec.routing_skew = s.numbers("routing-skew", 0, kMaxRoutingSkew);
}

// -lm/--load-mode, or the older --mmap on/off and --mlock it replaces (kept
// as aliases: mmap was on by default, so --mlock alone means mmap+mlock).
void load_mode(const SettingsReader& s, SweepSpec& spec) {
  const bool legacy = s.has("mmap") || s.has("mlock");
  if (s.has("load-mode") && legacy) {
    throw UserError(
        fmt::format("{}: --load-mode given together with --mmap/--mlock", s.flag("load-mode")),
        "one way to say how the model is loaded", "keep only --load-mode (-lm)");
  }
  if (legacy) {
    spec.load_mode = load_mode_of(s.boolean("mmap", true), s.boolean("mlock", false));
    return;
  }
  const std::string mode = s.has("load-mode") ? s.text("load-mode") : "auto";
  if (std::find(kLoadModes.begin(), kLoadModes.end(), mode) == kLoadModes.end()) {
    throw UserError(
        fmt::format("{}: unknown load mode '{}'", s.flag("load-mode"), mode),
        fmt::format("one of {} (the engine's llama-bench -lm)", fmt::join(kLoadModes, ", ")),
        "write e.g. -lm mmap");
  }
  spec.load_mode = mode;
}

void tensor_overrides(const SettingsReader& s, SweepSpec& spec) {
  if (s.has("override-tensor")) spec.tensor_overrides = split_list(s.text("override-tensor"), ';');
  for (const std::string& ot : spec.tensor_overrides)
    if (ot.find('=') == std::string::npos) {
      throw UserError(
          fmt::format("{}: tensor override '{}' has no '='", s.flag("override-tensor"), ot),
          "pattern=BUFFER_TYPE, e.g. exps=CPU", "write -ot exps=CPU");
    }
}

void flash_attn(const SettingsReader& s, SweepSpec& spec) {
  spec.flash_attn.clear();
  for (const std::string& w : s.words("flash-attn", {"auto"}))
    spec.flash_attn.push_back(flash_attn_word(w, s.flag("flash-attn")));
}

void cotenants(const SettingsReader& s, SweepSpec& spec) {
  if (s.has("cotenant"))
    spec.cotenants = parse_cotenant_list(s.text("cotenant"), s.flag("cotenant"));
}

void max_repetitions(const SettingsReader& s, SweepSpec& spec) {
  spec.max_repetitions = s.one_int("max-repetitions", std::max(20, spec.repetitions), 1);
  if (spec.max_repetitions < spec.repetitions) {
    throw UserError(fmt::format("{}: {} is below --repetitions {}", s.flag("max-repetitions"),
                                spec.max_repetitions, spec.repetitions),
                    "--max-repetitions >= --repetitions (-r is the minimum)",
                    "raise --max-repetitions or lower -r");
  }
}

// --engine a,b: names (engine/engine_registry.hpp), each once; resolved to
// workers by the plan.
void engines(const SettingsReader& s, SweepSpec& spec) {
  std::vector<std::string> names = s.words("engine", {});
  for (size_t i = 0; i < names.size(); ++i) {
    check_engine_name(names[i], s.flag("engine"));
    for (size_t j = 0; j < i; ++j)
      if (names[j] == names[i])
        throw UserError(fmt::format("{}: engine '{}' is named twice", s.flag("engine"), names[i]),
                        "each engine once", "remove the repeated name");
  }
  spec.engines = std::move(names);
}

void twin_for(const SettingsReader& s, SweepSpec& spec) {
  spec.twin_for = s.words("twin-for", {});
  for (const std::string& name : spec.twin_for) check_engine_name(name, s.flag("twin-for"));
}

void fused_moe(const SettingsReader& s, SweepSpec& spec) {
  spec.engine_knobs.fused_moe = switch_knob(s, "fused-moe");
}

void run_time_repack(const SettingsReader& s, SweepSpec& spec) {
  spec.engine_knobs.repack = switch_knob(s, "run-time-repack");
}

void mla_use(const SettingsReader& s, SweepSpec& spec) {
  if (!s.has("mla-use")) return;
  spec.engine_knobs.mla = s.one_int("mla-use", 3, 0);
  if (spec.engine_knobs.mla > 3)
    throw UserError(fmt::format("{}: {} is not an MLA implementation", s.flag("mla-use"),
                                spec.engine_knobs.mla),
                    "0, 1, 2 or 3 (ik_llama.cpp's -mla)", "give -mla 0..3");
}

void attention_max_batch(const SettingsReader& s, SweepSpec& spec) {
  if (s.has("attention-max-batch"))
    spec.engine_knobs.attn_max_batch = s.one_int("attention-max-batch", 0, 0);
}

void check_blocks(const SettingsReader& s, const SweepSpec& spec) {
  if (spec.blocks > kMaxBlocks)
    throw UserError(fmt::format("{} {} is too many blocks", s.flag("blocks"), spec.blocks),
                    fmt::format("at most {} (each block loads every model once)", kMaxBlocks),
                    "use fewer blocks and more --repetitions");
}

void check_numa(const SettingsReader& s, const SweepSpec& spec) {
  if (spec.numa != "disabled" && spec.numa != "distribute" && spec.numa != "isolate" &&
      spec.numa != "numactl") {
    throw UserError(fmt::format("{}: unknown NUMA strategy '{}'", s.flag("numa"), spec.numa),
                    "disabled, distribute, isolate or numactl", "pick one of those");
  }
}

void check_cache_type_k(const SettingsReader& s, const SweepSpec& spec) {
  check_cache_types(spec.type_k, s.flag("cache-type-k"));
}

void check_cache_type_v(const SettingsReader& s, const SweepSpec& spec) {
  check_cache_types(spec.type_v, s.flag("cache-type-v"));
}

void check_target_mde(const SettingsReader& s, const SweepSpec& spec) {
  if (spec.target_mde_pct >= 100)
    throw UserError(fmt::format("{}: {} is not a percentage below 100", s.flag("target-mde"),
                                spec.target_mde_pct),
                    "the smallest slowdown to detect, in percent, e.g. 5",
                    fmt::format("pass {} 5", s.flag("target-mde")));
}

void check_min_sample_time(const SettingsReader& s, const SweepSpec& spec) {
  const auto check = [&](const char* key, double seconds, double least) {
    if (seconds < least || seconds > kMaxMinSampleTime)
      throw UserError(fmt::format("{}: {:g} s is not a sample's length", s.flag(key), seconds),
                      fmt::format("0 to {:g} seconds", kMaxMinSampleTime),
                      fmt::format("pass {} 1", s.flag(key)));
  };
  check("min-sample-time", spec.min_sample_time_s, -1);  // -1: not given
  check("sample-time-without-profile", spec.fallback_sample_time_s, 0);
}

void check_token_times(const SettingsReader& s, const SweepSpec& spec) {
  if (spec.token_times != "on" && spec.token_times != "off" && spec.token_times != "ab")
    throw UserError(
        fmt::format("{}: '{}' is not a choice", s.flag("token-times"), spec.token_times),
        "on, off or ab", fmt::format("pass {} ab to measure their cost", s.flag("token-times")));
}

// --counters sim: valgrind runs one thread at a time and ggml's threads spin
// while they wait, so two runs at -t 2 counted 1.5% apart (docs/counters.md);
// exact counts need one thread, for generation and for batches alike.
void check_sim_counters(const SettingsReader& s, const SweepSpec& spec) {
  const std::string cache_flag = s.flag("sim-cache");
  if (spec.counters != "sim") {
    for (const auto& [key, set] : {std::pair{"sim-per-token", spec.sim_per_token},
                                   std::pair{"sim-keep-dumps", spec.sim_keep_dumps}})
      if (set)
        throw UserError(
            fmt::format("{} is set but the counters are '{}'", s.flag(key), spec.counters),
            fmt::format("--{} only with --counters sim", key),
            fmt::format("add --counters sim, or drop --{}", key));
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
                        s.flag("counters"), t),
            "-t 1 (and -tb 1) with --counters sim",
            "use -t 1: under valgrind ggml's threads spin while they wait and two runs at -t 2 "
            "counted 1.5% apart; for threads, use wall time or hardware counters");
}

void write_models(const SweepSpec& spec, nlohmann::json& j) {
  nlohmann::json models = nlohmann::json::array();
  for (const ModelChoice& m : spec.models)
    models.push_back({{"file", m.file}, {"twin_profile", m.twin_profile}, {"quant", m.quant}});
  j["models"] = std::move(models);
}

void write_experts_auto_l3(const SweepSpec& spec, nlohmann::json& j) {
  const ExpertsAutoL3& a = spec.twin_experts_auto;
  j["twin_experts_auto_l3"] = a.on() ? nlohmann::json{a.lo, a.hi} : nlohmann::json(nullptr);
}

// Only when used: the plans (and plan ids) of sweeps without it stay as they were.
void write_engine_opts(const SweepSpec& spec, nlohmann::json& j) {
  if (spec.engine_knobs.any()) j["engine_opts"] = knobs_text(spec.engine_knobs);
}

}  // namespace moesweep::spec_parsers
