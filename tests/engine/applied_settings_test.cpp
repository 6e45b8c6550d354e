// Issue 35 §3, the rules of applied against planned (engine/applied_settings):
// a setting that changes what a point measures fails it when the engine
// applied another value, a harmless one (n_ctx rounded up, a capped batch) is
// a note, a value the engine did not report is null and never the planned
// one, and "auto" takes what the engine chose. The engine's INFO lines are
// read as both engine kinds print them (the format strings are checked
// against the engine's source, so a changed line fails here first).
#include <gtest/gtest.h>

#include <string>

#include "engine/applied_settings.hpp"
#include "support/engine_fixtures.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::threads;

// n_batch 2048, f16/f16, flash attention auto, no ik switches (the defaults).
ContextParams plan() {
  ContextParams p;
  p.n_ctx = 80, p.n_ubatch = 64;
  return p;
}

// What the engine applies of plan() when it applies it all (auto: on).
AppliedContext as_planned() {
  AppliedContext a;
  a.n_ctx = 80, a.n_batch = 2048, a.n_ubatch = 64, a.flash_attn = 1;
  a.type_k = a.type_v = "f16";
  return a;
}

TEST(AppliedSettings, WhatWasPlannedPassesAndAutoTakesTheEnginesChoice) {
  const AppliedCheck c = check_applied(plan(), threads(2), as_planned(), {2, 2});
  EXPECT_TRUE(c.failures.empty()) << c.failures.front();
  EXPECT_TRUE(c.notes.empty());
  EXPECT_EQ(c.applied.at("flash_attn"), 1);
  EXPECT_EQ(c.applied.at("n_threads_batch"), 2);
  EXPECT_FALSE(c.applied.contains("fused_moe")) << c.applied;  // neither set nor reported
}

TEST(AppliedSettings, AMeaningChangingDifferenceFailsNamingTheField) {
  AppliedContext a = as_planned();
  a.type_v = "q8_0";
  a.n_ubatch = 32;
  ContextParams p = plan();
  p.flash_attn = 0;  // asked off, ran on
  const AppliedCheck c = check_applied(p, threads(2), a, {2, 1});
  std::string all;
  for (const std::string& f : c.failures) all += f + "\n";
  EXPECT_EQ(c.failures.size(), 4u) << all;
  for (const char* want :
       {"n_threads_batch 1 where the plan asked for 2", "n_ubatch 32 where the plan asked for 64",
        "type_v q8_0 where the plan asked for f16", "flash_attn 1 where the plan asked for 0"})
    EXPECT_NE(all.find(want), std::string::npos) << want << "\n" << all;
}

TEST(AppliedSettings, HarmlessDifferencesAreKeptAsNotesAndLessContextFails) {
  AppliedContext a = as_planned();
  a.n_ctx = 256;   // the engine's padding
  a.n_batch = 80;  // capped at the context
  AppliedCheck c = check_applied(plan(), threads(1), a, {1, 1});
  EXPECT_TRUE(c.failures.empty()) << c.failures.front();
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes[0].find("n_ctx 256 (planned 80)"), std::string::npos) << c.notes[0];
  EXPECT_EQ(c.applied.at("n_ctx"), 256);

  a.n_ctx = 64;
  c = check_applied(plan(), threads(1), a, {1, 1});
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_NE(c.failures[0].find("n_ctx 64 where the plan asked for 80"), std::string::npos);
}

// Issue 44, item 13: a worker that reported n_batch 1 (below its n_ubatch of
// 64) was a harmless note ("caps the batch at the context") and the point
// passed. Only the cap at the context (or more) is harmless.
TEST(AppliedSettings, ABatchBelowTheContextCapFailsThePoint) {
  AppliedContext a = as_planned();
  a.n_batch = 1;
  AppliedCheck c = check_applied(plan(), threads(1), a, {1, 1});
  ASSERT_EQ(c.failures.size(), 1u) << (c.notes.empty() ? "" : c.notes.front());
  EXPECT_NE(c.failures[0].find("n_batch 1 where the plan asked for 2048"), std::string::npos)
      << c.failures[0];
  EXPECT_TRUE(c.notes.empty()) << c.notes.front();
  a.n_batch = 79;  // one short of the context's cap
  EXPECT_EQ(check_applied(plan(), threads(1), a, {1, 1}).failures.size(), 1u);
  a.n_batch = 80;  // the cap itself
  c = check_applied(plan(), threads(1), a, {1, 1});
  EXPECT_TRUE(c.failures.empty()) << c.failures.front();
  EXPECT_EQ(c.notes.size(), 1u);
}

TEST(AppliedSettings, WhatTheEngineDidNotReportIsNullNotThePlan) {
  const AppliedCheck c = check_applied(plan(), threads(4), AppliedContext{}, AppliedThreads{});
  EXPECT_TRUE(c.failures.empty()) << c.failures.front();
  for (const char* field : {"n_threads", "n_ctx", "type_k", "flash_attn"})
    EXPECT_TRUE(c.applied.at(field).is_null()) << field << " " << c.applied;
}

TEST(AppliedSettings, MainlinesLogGivesTypesAndFlashAttentionResolvedFromAuto) {
  const std::string ctx = test::engine_source("src/llama-context.cpp");
  const std::string kv = test::engine_source("src/llama-kv-cache.cpp");
  ASSERT_NE(ctx.find(R"("%s: flash_attn            = %s\n")"), std::string::npos);
  ASSERT_NE(ctx.find(R"("%s: %s enabled\n")"), std::string::npos);
  ASSERT_NE(ctx.find(R"("%s: %s not supported, set to disabled\n")"), std::string::npos);
  ASSERT_NE(kv.find("K (%s): %7.2f MiB, V (%s): %7.2f MiB"), std::string::npos);

  AppliedContext a;
  read_applied_from_log(
      "llama_context: flash_attn            = auto\n"
      "llama_kv_cache: size =    1.12 MiB (   256 cells,   2 layers,  1/1 seqs), "
      "K (q8_0):    0.60 MiB, V (f16):    0.52 MiB\n"
      "llama_context: Flash Attention enabled\n",
      a);
  EXPECT_EQ(a.flash_attn, 1);
  EXPECT_EQ(a.type_k, "q8_0");
  EXPECT_EQ(a.type_v, "f16");

  AppliedContext off;
  read_applied_from_log(
      "llama_context: flash_attn            = auto\n"
      "llama_context: Flash Attention not supported, set to disabled\n",
      off);
  EXPECT_EQ(off.flash_attn, 0);
  AppliedContext asked;
  read_applied_from_log("llama_context: flash_attn            = disabled\n", asked);
  EXPECT_EQ(asked.flash_attn, 0);
}

TEST(AppliedSettings, IkLlamasLogGivesItsSwitchesAndTheMlaCacheType) {
  // ik_llama.cpp's llama_new_context_with_model lines ("%s: mla_attn      = %d\n", ...).
  AppliedContext a;
  read_applied_from_log(
      "llama_new_context_with_model: flash_attn    = 1\n"
      "llama_new_context_with_model: mla_attn      = 3\n"
      "llama_new_context_with_model: attn_max_b    = 512\n"
      "llama_new_context_with_model: fused_moe     = 1\n"
      "llama_kv_cache_init:        CPU KV buffer size =     1.00 MiB\n"
      "llama_new_context_with_model: KV self size  =    1.00 MiB, c^KV (q8_0):    1.00 MiB, "
      "kv^T: not used\n",
      a);
  EXPECT_EQ(a.flash_attn, 1);
  EXPECT_EQ(a.mla, 3);
  EXPECT_EQ(a.attn_max_batch, 512);
  EXPECT_EQ(a.fused_moe, 1);
  EXPECT_EQ(a.type_k, "q8_0");
  EXPECT_EQ(a.type_v, "");  // not used: not reported, never the plan's

  ContextParams p = plan();
  p.knobs.mla = 2;
  a.n_ctx = 80, a.n_batch = 2048, a.n_ubatch = 64;
  const AppliedCheck c = check_applied(p, threads(1), a, {1, 1});
  ASSERT_FALSE(c.failures.empty());
  bool named = false;
  for (const auto& f : c.failures) named |= f.find("mla 3 where the plan asked for 2") != f.npos;
  EXPECT_TRUE(named) << c.failures.front();
}

}  // namespace
}  // namespace moesweep
