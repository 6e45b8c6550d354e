// make_plan: how many points, in which order (model, context, then one KV walk
// per context: depth-major, thread-minor), and which inputs are refused before
// anything runs: depths that do not fit, more threads than CPUs, and contexts
// the engine cannot create.
#include <gtest/gtest.h>

#include <set>

#include "sweep/plan.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using Settings = std::map<std::string, nlohmann::json>;

SweepSpec spec_of(Settings s) {
  if (!s.count("depths")) s["depths"] = "0,256,512";
  if (!s.count("ctx-size")) s["ctx-size"] = "1024";
  if (!s.count("ubatch-size")) s["ubatch-size"] = "256";
  if (!s.count("n-gen")) s["n-gen"] = "4";
  return spec_from_settings(s, "test");
}

UserError plan_error(const SweepSpec& spec, int cpus, bool dry_run = false) {
  try {
    make_plan(spec, cpus, dry_run);
  } catch (const UserError& e) {
    return e;
  }
  ADD_FAILURE() << "make_plan accepted the spec";
  return UserError("", "", "");
}

TEST(MakePlan, PointCountIsModelsTimesContextsTimesDepthsTimesThreads) {
  const SweepSpec spec = spec_of({{"quant", "Q4_K_S,Q8_0"},
                                  {"ctx-size", "1024,2048"},
                                  {"cache-type-k", "f16,q8_0"},
                                  {"threads", "1,2,4"}});
  const Plan plan = make_plan(spec, 64);
  // 2 twins x (2 ctx x 2 K types) x 3 depths x 3 thread configs
  EXPECT_EQ(plan.points.size(), 2u * 4u * 3u * 3u);
  EXPECT_EQ(plan.models.size(), 2u);
  for (const ModelGroup& mg : plan.models) EXPECT_EQ(mg.contexts.size(), 4u);
  EXPECT_EQ(plan.summary().points, plan.points.size());
  EXPECT_EQ(plan.summary().model_loads, 2);
}

TEST(MakePlan, ThreadsBatchIsItsOwnAxis) {
  const Plan plan = make_plan(spec_of({{"threads", "1,2"}, {"threads-batch", "2,4"}}), 64);
  EXPECT_EQ(plan.points.size(), 3u * 2u * 2u);
  const auto& threads = plan.models[0].contexts[0].threads;
  ASSERT_EQ(threads.size(), 4u);
  EXPECT_EQ(threads[1].n_threads, 1);
  EXPECT_EQ(threads[1].n_threads_batch, 4);
}

TEST(MakePlan, RunOrderIsModelThenContextThenDepthThenThreadsInASnake) {
  const SweepSpec spec =
      spec_of({{"quant", "Q4_K_S,Q8_0"}, {"ctx-size", "1024,2048"}, {"threads", "2,1"}});
  const Plan plan = make_plan(spec, 64);
  ASSERT_EQ(plan.points.size(), 2u * 2u * 3u * 2u);
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const PlannedPoint& p = plan.points[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(p.index, static_cast<int>(i));
    // thread-minor in a snake (2,1 then 1,2: each depth starts on the thread
    // setting the previous one ended on), then depth, then context, then model
    EXPECT_EQ(p.thread, p.depth % 2 == 0 ? i % 2 : 1 - i % 2);
    EXPECT_EQ(p.depth, (i / 2) % 3);
    EXPECT_EQ(p.context, (i / 6) % 2);
    EXPECT_EQ(p.model, i / 12);
    EXPECT_EQ(p.params.n_threads, p.thread == 0 ? 2 : 1);
    EXPECT_EQ(p.params.n_kv, std::vector<int>({0, 256, 512})[p.depth]);
    EXPECT_EQ(p.params.n_ctx, p.context == 0 ? 1024 : 2048);
    EXPECT_EQ(p.params.quant, p.model == 0 ? "Q4_K_S" : "Q8_0");
  }
}

TEST(MakePlan, SummaryCountsTheSnakesSwitchesAndOnlyTheFillsNoTimedPpMakes) {
  const Plan plan = make_plan(
      spec_of({{"threads", "1,2,4"}, {"depths", "0,256,512,1024"}, {"ctx-size", 2048}}), 64);
  const PlanSummary s = plan.summary();
  EXPECT_EQ(s.thread_switches, 1 + 4 * 2);  // 3 settings at depth 0, then 2 more per depth
  EXPECT_EQ(s.fill_tokens, 512);            // 0->256->512 are the timed PPs; 512->1024 is not
  EXPECT_EQ(s.timed_tokens, 4 * 3 * 3 * (256 + 4));
}

TEST(MakePlan, PointsCarryEveryParameterAndUniqueKeys) {
  const Plan plan = make_plan(spec_of({{"threads", "1,2"},
                                       {"cache-type-k", "q8_0"},
                                       {"cache-type-v", "q8_0"},
                                       {"flash-attn", "on"},
                                       {"batch-size", "512"}}),
                              64);
  std::set<std::string> keys;
  for (const PlannedPoint& pt : plan.points) {
    const PointParams& p = pt.params;
    EXPECT_EQ(p.pp, 256);  // one ubatch, sweep-bench style
    EXPECT_EQ(p.tg, 4);
    EXPECT_EQ(p.n_batch, 512);
    EXPECT_EQ(p.n_ubatch, 256);
    EXPECT_EQ(p.type_k, "q8_0");
    EXPECT_EQ(p.flash_attn, 1);
    EXPECT_EQ(p.model_name.rfind("kimi-k2.5-tiny-Q4_K_S-s42-", 0), 0u) << p.model_name;
    keys.insert(p.key_string());
  }
  EXPECT_EQ(keys.size(), plan.points.size());
}

TEST(MakePlan, DepthThatDoesNotFitNamesTheFix) {
  const UserError e = plan_error(spec_of({{"depths", "0,900"}}), 64);
  // 900 + 256 + 4 = 1160 > 1024
  EXPECT_NE(e.problem().find("depth 900"), std::string::npos) << e.problem();
  EXPECT_NE(e.problem().find("ctx 1024"), std::string::npos) << e.problem();
  EXPECT_NE(e.fix().find("raise -c to at least 1160"), std::string::npos) << e.fix();
  EXPECT_EQ(e.exit_code(), exit_code::kBadInput);
}

TEST(MakePlan, DeepestDepthThatExactlyFitsIsAccepted) {
  EXPECT_NO_THROW(make_plan(spec_of({{"depths", "0,764"}}), 64));  // 764 + 256 + 4 = 1024
}

TEST(MakePlan, ContextTooSmallForOneUbatchIsRefused) {
  const UserError e = plan_error(spec_of({{"depths", "0"}, {"ctx-size", "128"}}), 64);
  EXPECT_NE(e.fix().find("raise -c"), std::string::npos) << e.fix();
}

TEST(MakePlan, ThreadsAboveLogicalCpusAreRefusedWithTheCoreCount) {
  const UserError e = plan_error(spec_of({{"threads", "1,8"}}), 4);
  EXPECT_NE(e.problem().find("8 threads"), std::string::npos) << e.problem();
  EXPECT_NE(e.problem().find("4 logical CPUs"), std::string::npos) << e.problem();
  EXPECT_NE(e.fix().find("--allow-oversubscribe"), std::string::npos) << e.fix();
  const UserError tb = plan_error(spec_of({{"threads", "2"}, {"threads-batch", "6"}}), 4);
  EXPECT_NE(tb.problem().find("6 threads"), std::string::npos) << tb.problem();
}

TEST(MakePlan, AllowOversubscribeRunsAnyway) {
  const Plan plan = make_plan(spec_of({{"threads", "1,8"}, {"allow-oversubscribe", true}}), 4);
  EXPECT_EQ(plan.points.size(), 6u);
  EXPECT_TRUE(plan.warnings.empty());
}

TEST(MakePlan, DryRunWarnsAboutOversubscriptionInsteadOfRefusing) {
  const Plan plan = make_plan(spec_of({{"threads", "16,14"}}), 2, /*dry_run=*/true);
  EXPECT_EQ(plan.points.size(), 6u);
  ASSERT_EQ(plan.warnings.size(), 2u);
  EXPECT_NE(plan.warnings[0].find("16 threads"), std::string::npos) << plan.warnings[0];
  EXPECT_NE(plan.warnings[0].find("2 logical CPUs"), std::string::npos) << plan.warnings[0];
}

TEST(MakePlan, QuantizedVWithoutFlashAttentionIsMarkedInvalid) {
  const Plan plan = make_plan(
      spec_of({{"cache-type-k", "q8_0"}, {"cache-type-v", "q8_0"}, {"flash-attn", "on,off"}}), 64);
  const auto& contexts = plan.models.at(0).contexts;
  ASSERT_EQ(contexts.size(), 2u);
  EXPECT_EQ(contexts[0].params.flash_attn, 1);
  EXPECT_TRUE(contexts[0].invalid_reason.empty()) << contexts[0].invalid_reason;
  EXPECT_EQ(contexts[1].params.flash_attn, 0);
  EXPECT_NE(contexts[1].invalid_reason.find("-ctv q8_0 needs flash attention"), std::string::npos)
      << contexts[1].invalid_reason;
  EXPECT_EQ(plan.points.size(), 6u);  // the invalid context's points stay, to be recorded failed
  EXPECT_EQ(plan.summary().contexts, 1);
}

// llama_init_from_model turns flash attention on for a quantized V cache when
// it is "auto"; only an explicit off fails.
TEST(MakePlan, QuantizedVWithFlashAttnAutoIsValidAsTheEngineEnablesIt) {
  const Plan plan = make_plan(
      spec_of({{"cache-type-k", "q8_0"}, {"cache-type-v", "q8_0"}, {"flash-attn", "auto,off"}}),
      64);
  const auto& contexts = plan.models.at(0).contexts;
  ASSERT_EQ(contexts.size(), 2u);
  EXPECT_EQ(contexts[0].params.flash_attn, -1);
  EXPECT_TRUE(contexts[0].invalid_reason.empty()) << contexts[0].invalid_reason;
  EXPECT_NE(contexts[1].invalid_reason.find("needs flash attention"), std::string::npos);
  // and the default (-fa not given) is auto
  EXPECT_NO_THROW(make_plan(spec_of({{"cache-type-v", "q4_0"}}), 64));
}

TEST(MakePlan, PointsCarryLlamaBenchDefaults) {
  const Plan plan = make_plan(spec_of({}), 64);
  EXPECT_EQ(plan.models.at(0).load.load_mode, "auto");
  EXPECT_EQ(plan.models.at(0).load.n_gpu_layers, -1);
  for (const PlannedPoint& pt : plan.points) {
    EXPECT_EQ(pt.params.load_mode, "auto");
    EXPECT_EQ(pt.params.n_gpu_layers, -1);
    EXPECT_EQ(pt.params.flash_attn, -1);
  }
}

TEST(MakePlan, WithoutCtxSizeTheContextIsSizedFromTheDeepestDepth) {
  // Refused before issue 9: `--depths 0-6144+1024` against a fixed 4096 ctx.
  SweepSpec spec = spec_of({{"depths", "0-6144+1024"}, {"ubatch-size", "512,256"}});
  spec.n_ctx.clear();  // -c not given
  const Plan plan = make_plan(spec, 64);
  const auto& contexts = plan.models.at(0).contexts;
  ASSERT_EQ(contexts.size(), 2u);
  EXPECT_EQ(contexts[0].params.n_ctx, 6144 + 512 + 4);  // deepest + PP (one ubatch) + TG
  EXPECT_EQ(contexts[1].params.n_ctx, 6144 + 256 + 4);
  EXPECT_EQ(contexts[0].depths.back(), 6144);
  for (const PlannedPoint& pt : plan.points)
    EXPECT_EQ(pt.params.n_ctx, contexts[pt.context].params.n_ctx);
  // with -c the given size still rules, and is refused when too small
  spec.n_ctx = {4096};
  EXPECT_NE(plan_error(spec, 64).fix().find("leave -c out"), std::string::npos);
}

TEST(MakePlan, QuantizedKAloneNeedsNoFlashAttention) {
  const Plan plan = make_plan(spec_of({{"cache-type-k", "q8_0"}, {"flash-attn", "off"}}), 64);
  EXPECT_TRUE(plan.models.at(0).contexts.at(0).invalid_reason.empty());
}

TEST(MakePlan, NoValidContextIsAUserErrorNamingTheRule) {
  const UserError e = plan_error(spec_of({{"cache-type-v", "q4_0"}, {"flash-attn", "off"}}), 64);
  EXPECT_NE(e.problem().find("no context in this sweep can be created"), std::string::npos)
      << e.problem();
  EXPECT_NE(e.problem().find("flash attention"), std::string::npos) << e.problem();
  EXPECT_NE(e.fix().find("-fa on"), std::string::npos) << e.fix();
}

TEST(MakePlan, UbatchLargerThanBatchIsInvalid) {
  const UserError e = plan_error(spec_of({{"batch-size", "128"}}), 64);
  EXPECT_NE(e.problem().find("ubatch must not exceed batch"), std::string::npos) << e.problem();
}

TEST(MakePlan, UnknownTwinProfileOrScaleIsRefusedBeforeRunning) {
  EXPECT_THROW(make_plan(spec_of({{"model", "kimi-k9"}}), 64), UserError);
  EXPECT_THROW(make_plan(spec_of({{"scale", "huge"}}), 64), UserError);
}

TEST(MakePlan, ModelFileIsNamedByItsFileName) {
  const Plan plan = make_plan(spec_of({{"model", "/models/Kimi-K2.5-Q4_K_S.gguf"}}), 64);
  ASSERT_EQ(plan.models.size(), 1u);
  EXPECT_EQ(plan.models[0].load.path, "/models/Kimi-K2.5-Q4_K_S.gguf");
  EXPECT_EQ(plan.points[0].params.model_name, "Kimi-K2.5-Q4_K_S.gguf");
}

}  // namespace
}  // namespace moesweep
