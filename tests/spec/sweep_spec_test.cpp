// SweepSpec from settings (the flags' long names, the same keys a profile file
// uses): lists and ranges per axis, twins per quant, refusals that name the
// key; the depth schedule; the shipped sweep profiles.
#include <gtest/gtest.h>

#include "sweep/plan.hpp"
#include "sweep/runner.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using Settings = std::map<std::string, nlohmann::json>;

std::string error_text_of(const Settings& s) {
  try {
    spec_from_settings(s, "test.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(SpecFromSettings, DefaultsAreTheTinyKimiTwinAtQ4KS) {
  const SweepSpec s = spec_from_settings({}, "defaults");
  ASSERT_EQ(s.models.size(), 1u);
  EXPECT_EQ(s.models[0].twin_profile, "kimi-k2.5");
  EXPECT_EQ(s.models[0].quant, "Q4_K_S");
  EXPECT_EQ(s.twin_scale, "tiny");
  EXPECT_EQ(s.threads, std::vector<int>{1});
  EXPECT_EQ(s.repetitions, 3);
}

// llama-bench's defaults, so the same user flags give rows that
// compare-llama-bench.py joins (issue 9): -fa auto, -ngl -1, -lm auto.
TEST(SpecFromSettings, DefaultsAreLlamaBenchDefaults) {
  const SweepSpec s = spec_from_settings({}, "defaults");
  EXPECT_EQ(s.flash_attn, std::vector<int>{-1});
  EXPECT_EQ(s.n_gpu_layers, -1);
  EXPECT_EQ(s.load_mode, "auto");
  EXPECT_TRUE(s.n_ctx.empty());  // sized per context from the depths (ctx_for)
}

TEST(SpecFromSettings, FlashAttnTakesLlamaBenchWords) {
  const SweepSpec s = spec_from_settings({{"flash-attn", "auto,on,off,-1,1,0"}}, "flags");
  EXPECT_EQ(s.flash_attn, (std::vector<int>{-1, 1, 0, -1, 1, 0}));
  EXPECT_EQ(spec_from_settings({{"flash-attn", true}}, "profile").flash_attn, std::vector<int>{1});
  const std::string msg = error_text_of({{"flash-attn", "maybe"}});
  EXPECT_NE(msg.find("'maybe' is not on, off or auto"), std::string::npos) << msg;
}

TEST(SpecFromSettings, LoadModeTakesTheEngineNamesAndTheOlderMmapMlock) {
  for (const char* mode : {"auto", "none", "mmap", "mlock", "mmap+mlock", "dio"})
    EXPECT_EQ(spec_from_settings({{"load-mode", mode}}, "flags").load_mode, mode);
  EXPECT_EQ(spec_from_settings({{"mmap", "on"}}, "flags").load_mode, "mmap");
  EXPECT_EQ(spec_from_settings({{"mmap", "0"}}, "flags").load_mode, "none");
  EXPECT_EQ(spec_from_settings({{"mlock", true}}, "flags").load_mode, "mmap+mlock");
  EXPECT_EQ(spec_from_settings({{"mmap", "off"}, {"mlock", true}}, "flags").load_mode, "mlock");
  std::string msg = error_text_of({{"load-mode", "fast"}});
  EXPECT_NE(msg.find("unknown load mode 'fast'"), std::string::npos) << msg;
  msg = error_text_of({{"load-mode", "mmap"}, {"mlock", true}});
  EXPECT_NE(msg.find("together with --mmap/--mlock"), std::string::npos) << msg;
}

TEST(CtxFor, WithoutCtxSizeTheContextFitsTheDeepestDepthAsLlamaBenchSizesIt) {
  // llama-bench: n_ctx = n_prompt + n_gen + n_depth; one context holds the deepest.
  SweepSpec s = spec_from_settings({{"depths", "0-6144+1024"}, {"n-gen", 32}}, "t");
  EXPECT_EQ(s.ctx_for(512), std::vector<int>{6144 + 512 + 32});  // PP = one ubatch
  s = spec_from_settings({{"depths", "0"}, {"n-prompt", 256}, {"n-gen", 16}}, "t");
  EXPECT_EQ(s.ctx_for(256), std::vector<int>{256 + 16});
  s = spec_from_settings({{"depth-max", 2500}, {"depth-step", 1000}, {"n-gen", 16}}, "t");
  EXPECT_EQ(s.ctx_for(512), std::vector<int>{2000 + 512 + 16});  // the walk's last depth
  s = spec_from_settings({{"n-gen", 16}}, "t");
  EXPECT_EQ(s.ctx_for(512), std::vector<int>{SweepSpec::kDefaultCtx});  // open walk
  s = spec_from_settings({{"depths", "0-6144+1024"}, {"ctx-size", 8192}}, "t");
  EXPECT_EQ(s.ctx_for(512), std::vector<int>{8192});  // -c as given
}

TEST(SpecFromSettings, FlagStringsAndProfileJsonValuesMeanTheSame) {
  const SweepSpec from_flags = spec_from_settings(
      {{"threads", "12-16"}, {"ctx-size", "8192"}, {"flash-attn", "on"}, {"n-gen", "32"}}, "flags");
  const SweepSpec from_json =
      spec_from_settings({{"threads", nlohmann::json::array({12, 13, 14, 15, 16})},
                          {"ctx-size", 8192},
                          {"flash-attn", true},
                          {"n-gen", 32}},
                         "profile");
  EXPECT_EQ(from_flags.threads, (std::vector<int>{12, 13, 14, 15, 16}));
  EXPECT_EQ(from_json.threads, from_flags.threads);
  EXPECT_EQ(from_json.n_ctx, std::vector<int>{8192});
  EXPECT_EQ(from_json.flash_attn, std::vector<int>{1});
  EXPECT_EQ(from_json.to_json(), from_flags.to_json());
}

TEST(SpecFromSettings, EveryAxisTakesAList) {
  const SweepSpec s = spec_from_settings({{"threads", "16,14,13,12"},
                                          {"threads-batch", "26"},
                                          {"ctx-size", "4096,8192"},
                                          {"batch-size", "2048"},
                                          {"ubatch-size", "256-1024*2"},
                                          {"cache-type-k", "f16,q8_0"},
                                          {"cache-type-v", "q8_0"},
                                          {"flash-attn", "on,off"},
                                          {"depths", "0-4096+1024"},
                                          {"repetitions", 5}},
                                         "flags");
  EXPECT_EQ(s.threads, (std::vector<int>{16, 14, 13, 12}));
  EXPECT_EQ(s.threads_batch, std::vector<int>{26});
  EXPECT_EQ(s.n_ctx, (std::vector<int>{4096, 8192}));
  EXPECT_EQ(s.n_ubatch, (std::vector<int>{256, 512, 1024}));
  EXPECT_EQ(s.type_k, (std::vector<std::string>{"f16", "q8_0"}));
  EXPECT_EQ(s.flash_attn, (std::vector<int>{1, 0}));
  EXPECT_EQ(s.depths, (std::vector<int>{0, 1024, 2048, 3072, 4096}));
  EXPECT_EQ(s.repetitions, 5);
}

TEST(SpecFromSettings, QuantListMultipliesTwinModelsButNotFiles) {
  const SweepSpec s = spec_from_settings(
      {{"model", "kimi-k2.5,deepseek-v3,/models/real.gguf"}, {"quant", "Q4_K_S,Q8_0"}}, "flags");
  ASSERT_EQ(s.models.size(), 5u);
  EXPECT_EQ(s.models[0].twin_profile, "kimi-k2.5");
  EXPECT_EQ(s.models[0].quant, "Q4_K_S");
  EXPECT_EQ(s.models[1].twin_profile, "kimi-k2.5");
  EXPECT_EQ(s.models[1].quant, "Q8_0");
  EXPECT_EQ(s.models[2].twin_profile, "deepseek-v3");
  EXPECT_EQ(s.models[3].quant, "Q8_0");
  EXPECT_EQ(s.models[4].file, "/models/real.gguf");
  EXPECT_TRUE(s.models[4].twin_profile.empty());
}

TEST(SpecFromSettings, UnknownKeyIsRefusedWithTheKnownOnes) {
  const std::string msg = error_text_of({{"thread", "4"}});
  EXPECT_NE(msg.find("unknown setting 'thread'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("threads"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.json"), std::string::npos) << msg;
}

TEST(SpecFromSettings, BadValuesNameTheKey) {
  EXPECT_NE(error_text_of({{"cache-type-k", "q9_9"}}).find("unknown KV cache type 'q9_9'"),
            std::string::npos);
  EXPECT_NE(error_text_of({{"cache-type-v", "f16,int3"}}).find("'int3'"), std::string::npos);
  EXPECT_NE(error_text_of({{"threads", "0"}}).find("--threads"), std::string::npos);
  EXPECT_NE(error_text_of({{"threads", "two"}}).find("'two' is not a number"), std::string::npos);
  EXPECT_NE(error_text_of({{"repetitions", "2,3"}}).find("takes one value"), std::string::npos);
  EXPECT_NE(error_text_of({{"numa", "everywhere"}}).find("unknown NUMA strategy"),
            std::string::npos);
  EXPECT_NE(error_text_of({{"override-tensor", "exps"}}).find("has no '='"), std::string::npos);
  EXPECT_NE(
      error_text_of({{"n-prompt", 0}, {"n-gen", 0}}).find("both --n-prompt and --n-gen are 0"),
      std::string::npos);
}

TEST(SpecFromSettings, TargetCiRepeatsBetweenRepetitionsAndMaxRepetitions) {
  const SweepSpec off = spec_from_settings({}, "defaults");
  EXPECT_EQ(off.target_ci_pct, 0.0);
  EXPECT_EQ(off.max_repetitions, 20);
  const SweepSpec on = spec_from_settings(
      {{"target-ci", "2.5"}, {"max-repetitions", "12"}, {"repetitions", "4"}}, "flags");
  EXPECT_DOUBLE_EQ(on.target_ci_pct, 2.5);
  EXPECT_EQ(on.max_repetitions, 12);
  EXPECT_EQ(on.repetitions, 4);
  EXPECT_DOUBLE_EQ(spec_from_settings({{"target-ci", 2}}, "profile").target_ci_pct, 2.0);
  // -r above the default maximum raises it rather than refusing
  EXPECT_EQ(spec_from_settings({{"repetitions", 30}}, "flags").max_repetitions, 30);
  EXPECT_NE(error_text_of({{"max-repetitions", 2}, {"repetitions", 3}}).find("below --repetitions"),
            std::string::npos);
  EXPECT_NE(error_text_of({{"target-ci", "two"}}).find("'two' is not a number"), std::string::npos);
  EXPECT_NE(error_text_of({{"target-ci", "-1"}}).find("--target-ci"), std::string::npos);
  EXPECT_NE(error_text_of({{"target-ci", "nan"}}).find("--target-ci"), std::string::npos);
}

TEST(SpecFromSettings, BadOnOffWordSaysHowToWriteTheFlag) {
  for (const char* key : {"mmap", "mlock"}) {
    try {
      spec_from_settings({{key, "maybe"}}, "command line");
      ADD_FAILURE() << key << " maybe accepted";
    } catch (const UserError& e) {
      EXPECT_NE(e.problem().find(std::string("command line: --") + key + ": 'maybe'"),
                std::string::npos)
          << e.problem();
      EXPECT_EQ(e.fix(), std::string("write --") + key + " on or --" + key + " off");
    }
  }
}

TEST(DepthsFor, DefaultWalksInUbatchStepsAsDeepAsTheContextAllows) {
  SweepSpec s = spec_from_settings({{"n-gen", 32}}, "t");
  // room = 2048 - 512 (PP = one ubatch) - 32 = 1504: depths 0, 512, 1024
  EXPECT_EQ(s.depths_for(2048, 512), (std::vector<int>{0, 512, 1024}));
  EXPECT_EQ(s.depths_for(2048 + 32, 512), (std::vector<int>{0, 512, 1024, 1536}));
}

TEST(DepthsFor, StepAndMaxAreHonoured) {
  SweepSpec s = spec_from_settings({{"depth-step", 1000}, {"depth-max", 2500}, {"n-gen", 16}}, "t");
  EXPECT_EQ(s.depths_for(8192, 512), (std::vector<int>{0, 1000, 2000}));
  s.n_prompt = 128;
  s.depth_max = -1;
  // room = 2048 - 128 - 16 = 1904
  EXPECT_EQ(s.depths_for(2048, 512), (std::vector<int>{0, 1000}));
}

TEST(DepthsFor, ExplicitListIsUsedAsGiven) {
  const SweepSpec s = spec_from_settings({{"depths", "4096,0,1024"}}, "t");
  EXPECT_EQ(s.depths_for(512, 512), (std::vector<int>{4096, 0, 1024}));  // the plan checks fit
}

TEST(DepthsFor, ContextTooSmallForOneMeasurementStillYieldsDepthZero) {
  const SweepSpec s = spec_from_settings({{"n-gen", 32}}, "t");
  EXPECT_EQ(s.depths_for(256, 512), std::vector<int>{0});  // make_plan refuses it
}

Plan plan_of_profile(const std::string& name, SweepSpec* spec_out = nullptr) {
  std::string origin;
  const SweepSpec spec = spec_from_settings(load_sweep_profile(name, &origin), origin);
  EXPECT_NE(origin.find(name + ".json"), std::string::npos) << origin;
  if (spec_out) *spec_out = spec;
  return make_plan(spec, 16);
}

TEST(ShippedSweepProfiles, Threads12To16IsTheSeedsTable) {
  SweepSpec s;
  const Plan plan = plan_of_profile("threads-12-16", &s);
  EXPECT_EQ(s.threads, (std::vector<int>{16, 14, 13, 12}));
  EXPECT_EQ(s.n_ctx, std::vector<int>{8192});
  EXPECT_EQ(s.n_batch, std::vector<int>{2048});
  EXPECT_EQ(s.n_ubatch, std::vector<int>{512});
  EXPECT_EQ(s.type_k, std::vector<std::string>{"q8_0"});
  EXPECT_EQ(s.type_v, std::vector<std::string>{"q8_0"});
  EXPECT_EQ(s.flash_attn, std::vector<int>{1});
  ASSERT_EQ(plan.models.size(), 1u);
  ASSERT_EQ(plan.models[0].contexts.size(), 1u);
  EXPECT_TRUE(plan.models[0].contexts[0].invalid_reason.empty());
}

TEST(ShippedSweepProfiles, LongContextWalksTo128K) {
  SweepSpec s;
  const Plan plan = plan_of_profile("long-context", &s);
  ASSERT_EQ(plan.models.size(), 1u);
  const ContextGroup& cg = plan.models[0].contexts.at(0);
  EXPECT_GE(cg.params.n_ctx, 131072);
  EXPECT_EQ(cg.depths.front(), 0);
  EXPECT_EQ(cg.depths.back(), 131072);
  EXPECT_EQ(cg.depths.size(), 131072u / 16384 + 1);
  EXPECT_EQ(cg.params.flash_attn, 1);
  EXPECT_EQ(plan.points.size(), cg.depths.size() * cg.threads.size());
}

TEST(ShippedSweepProfiles, DefaultAndCiAreSmallTinyTwinSweeps) {
  for (const std::string name : {"default", "ci"}) {
    SCOPED_TRACE(name);
    SweepSpec s;
    const Plan plan = plan_of_profile(name, &s);
    EXPECT_EQ(s.twin_scale, "tiny");
    EXPECT_LE(*std::max_element(s.threads.begin(), s.threads.end()), 2);  // a 2-core CI machine
    EXPECT_GT(plan.points.size(), 0u);
    EXPECT_LE(plan.points.size(), 16u);
  }
}

TEST(ShippedSweepProfiles, UnknownProfileIsRefused) {
  std::string origin;
  EXPECT_THROW(load_sweep_profile("no-such-profile", &origin), UserError);
}

TEST(RandomTokens, FixedSeedGivesTheSameTokensInRange) {
  const auto a = random_tokens(1234, 768, 4096);
  EXPECT_EQ(a, random_tokens(1234, 768, 4096));
  EXPECT_NE(a, random_tokens(1235, 768, 4096));
  for (int32_t t : a) ASSERT_TRUE(t >= 0 && t < 768) << t;
  // Varied tokens (a constant token would route to the same experts).
  std::set<int32_t> distinct(a.begin(), a.end());
  EXPECT_GT(distinct.size(), 700u);
}

}  // namespace
}  // namespace moesweep
