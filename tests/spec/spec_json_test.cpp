// SweepSpec's JSON (meta.json's "spec"; the plan id is its hash), written by
// a loop over the settings table (sweep/sweep_settings.cpp): the documents
// below were written by the hand-written to_json before the table drove it,
// so a stored run's plan id still matches the plan its settings expand to.
#include <gtest/gtest.h>

#include "sweep/sweep_settings.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep {
namespace {

using Settings = std::map<std::string, nlohmann::json>;

// Every setting given (engines too: only their names are checked here).
const Settings kEverySetting = {{"name", "all"},
                                {"description", "every key"},
                                {"model", "kimi-k2.5,qwen3-moe"},
                                {"quant", "Q4_K_S,Q8_0"},
                                {"scale", "tiny"},
                                {"seed", 7},
                                {"layers", 2},
                                {"hidden", 512},
                                {"heads", 4},
                                {"dense-ff", 512},
                                {"vocab", 1024},
                                {"experts", "8,16"},
                                {"experts-used", 2},
                                {"expert-ff", "256,512"},
                                {"routing-skew", "0,1.5"},
                                {"blocks", 3},
                                {"block-seed", 5},
                                {"load-mode", "mmap"},
                                {"n-gpu-layers", 0},
                                {"override-tensor", "exps=CPU;attn=CPU"},
                                {"n-cpu-moe", "1,2"},
                                {"l3-ways", "2,4"},
                                {"mem-bw-percent", "50"},
                                {"numa", "distribute"},
                                {"ctx-size", "4096"},
                                {"batch-size", "512,1024"},
                                {"ubatch-size", "128,256"},
                                {"cache-type-k", "f16,q8_0"},
                                {"cache-type-v", "q8_0"},
                                {"flash-attn", "on,auto"},
                                {"threads", "1,2"},
                                {"threads-batch", "2"},
                                {"cpu-mask", "0-1;0"},
                                {"cpu-strict", true},
                                {"poll", 10},
                                {"cotenant", "none,stream"},
                                {"cotenant-cpus", "1"},
                                {"depths", "0,256"},
                                {"depth-step", 128},
                                {"depth-max", 1024},
                                {"n-prompt", 64},
                                {"n-gen", 16},
                                {"repetitions", 4},
                                {"target-ci", 5},
                                {"target-mde", 5},
                                {"max-repetitions", 30},
                                {"max-time", 60},
                                {"token-seed", 9},
                                {"token-times", "ab"},
                                {"point-timeout", 100},
                                {"engine", "main,pr-1"},
                                {"twin-for", "old-1"},
                                {"fused-moe", 1},
                                {"run-time-repack", "0"},
                                {"mla-use", 2},
                                {"attention-max-batch", 512},
                                {"counters", "none"},
                                {"allow-oversubscribe", true}};

// The documents the hand-written writer gave for these settings.
const std::pair<Settings, const char*>
    kCases[] =
        {
            {{},
             R"({"allow_oversubscribe":false,"counters":"auto","cpu_masks":[""],"cpu_strict":false,"depth_max":-1,"depth_step":0,"depths":[],"flash_attn":[-1],"l3_ways":[],"load_mode":"auto","max_repetitions":20,"mem_bw_percent":[],"models":[{"file":"","quant":"Q4_K_S","twin_profile":"kimi-k2.5"}],"n_batch":[2048],"n_cpu_moe":[],"n_ctx":[],"n_gen":32,"n_gpu_layers":-1,"n_prompt":0,"n_ubatch":[512],"name":"adhoc","numa":"disabled","poll":50,"repetitions":3,"routing_skew":[],"target_ci_pct":0.0,"tensor_overrides":[],"threads":[1],"threads_batch":[],"token_seed":1234,"twin_expert_ff":[],"twin_experts":[],"twin_experts_auto_l3":null,"twin_scale":"tiny","twin_seed":42,"type_k":["f16"],"type_v":["f16"]})"},
            {kEverySetting,
             R"({"allow_oversubscribe":true,"cotenant_cpus":"1","cotenants":["","stream"],"counters":"none","cpu_masks":["0-1","0"],"cpu_strict":true,"depth_max":1024,"depth_step":128,"depths":[0,256],"engine_opts":"fmoe=1 rtr=0 mla=2 amb=512","engines":["main","pr-1"],"flash_attn":[1,-1],"l3_ways":[2,4],"load_mode":"mmap","max_repetitions":30,"max_time_s":60.0,"mem_bw_percent":[50],"models":[{"file":"","quant":"Q4_K_S","twin_profile":"kimi-k2.5"},{"file":"","quant":"Q8_0","twin_profile":"kimi-k2.5"},{"file":"","quant":"Q4_K_S","twin_profile":"qwen3-moe"},{"file":"","quant":"Q8_0","twin_profile":"qwen3-moe"}],"n_batch":[512,1024],"n_cpu_moe":[1,2],"n_ctx":[4096],"n_gen":16,"n_gpu_layers":0,"n_prompt":64,"n_ubatch":[128,256],"name":"all","numa":"distribute","point_timeout_s":100.0,"poll":10,"repetitions":4,"routing_skew":[0.0,1.5],"target_ci_pct":5.0,"target_mde_pct":5.0,"tensor_overrides":["exps=CPU","attn=CPU"],"threads":[1,2],"threads_batch":[2],"token_seed":9,"token_times":"ab","twin_expert_ff":[256,512],"twin_experts":[8,16],"twin_experts_auto_l3":null,"twin_for":["old-1"],"twin_scale":"tiny","twin_seed":7,"type_k":["f16","q8_0"],"type_v":["q8_0"]})"},
            {{{"experts", "auto-l3:0.125-8/4"},
              {"mmap", "off"},
              {"mlock", true},
              {"depth-max", 512}},
             R"({"allow_oversubscribe":false,"counters":"auto","cpu_masks":[""],"cpu_strict":false,"depth_max":512,"depth_step":0,"depths":[],"flash_attn":[-1],"l3_ways":[],"load_mode":"mlock","max_repetitions":20,"mem_bw_percent":[],"models":[{"file":"","quant":"Q4_K_S","twin_profile":"kimi-k2.5"}],"n_batch":[2048],"n_cpu_moe":[],"n_ctx":[],"n_gen":32,"n_gpu_layers":-1,"n_prompt":0,"n_ubatch":[512],"name":"adhoc","numa":"disabled","poll":50,"repetitions":3,"routing_skew":[],"target_ci_pct":0.0,"tensor_overrides":[],"threads":[1],"threads_batch":[],"token_seed":1234,"twin_expert_ff":[],"twin_experts":[],"twin_experts_auto_l3":[0.125,8.0],"twin_scale":"tiny","twin_seed":42,"type_k":["f16"],"type_v":["f16"]})"},
            {{{"counters", "sim"}, {"sim-cache", "LL=67108864B,16"}, {"sim-per-token", true}, {"sim-keep-dumps", true}, {"min-sample-time", 0.5}, {"sample-time-without-profile", 0.8}}, R"({"allow_oversubscribe":false,"counters":"sim","cpu_masks":[""],"cpu_strict":false,"depth_max":-1,"depth_step":0,"depths":[],"flash_attn":[-1],"l3_ways":[],"load_mode":"auto","max_repetitions":20,"mem_bw_percent":[],"min_sample_time_s":0.5,"models":[{"file":"","quant":"Q4_K_S","twin_profile":"kimi-k2.5"}],"n_batch":[2048],"n_cpu_moe":[],"n_ctx":[],"n_gen":32,"n_gpu_layers":-1,"n_prompt":0,"n_ubatch":[512],"name":"adhoc","numa":"disabled","poll":50,"repetitions":3,"routing_skew":[],"sample_time_without_profile_s":0.8,"sim_cache":"LL=67108864B,16","sim_keep_dumps":true,"sim_per_token":true,"target_ci_pct":0.0,"tensor_overrides":[],"threads":[1],"threads_batch":[],"token_seed":1234,"twin_expert_ff":[],"twin_experts":[],"twin_experts_auto_l3":null,"twin_scale":"tiny","twin_seed":42,"type_k":["f16"],"type_v":["f16"]})"},
};

TEST(SpecJson, EverySettingOfTheTableIsInACase) {
  for (const SweepSetting& s : sweep_settings()) {
    bool given = false;
    for (const auto& c : kCases) given = given || c.first.count(s.key) > 0;
    EXPECT_TRUE(given) << s.key;
  }
}

TEST(SpecJson, TheDocumentsAreThoseOfTheHandWrittenWriter) {
  for (const auto& [settings, json] : kCases)
    EXPECT_EQ(spec_from_settings(settings, "test").to_json().dump(), json);
}

}  // namespace
}  // namespace moesweep
