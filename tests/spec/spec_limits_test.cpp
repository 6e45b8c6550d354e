// The largest values a sweep takes (src/sweep/spec_limits.hpp): checked when
// the spec is made, so a value that would crash the engine, overflow the
// plan's arithmetic or expand into millions of points never gets further.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/test_support.hpp"

#include <sched.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "engine/engine_limits.hpp"
#include "sweep/plan.hpp"
#include "sweep/spec_limits.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using Settings = std::map<std::string, nlohmann::json>;

UserError error_of(const Settings& s) {
  try {
    spec_from_settings(s, "test");
  } catch (const UserError& e) {
    return e;
  }
  ADD_FAILURE() << "spec accepted";
  return UserError("", "", "");
}

UserError plan_error(const Settings& s, bool dry_run = false) {
  try {
    make_plan(spec_from_settings(s, "test"), 64, dry_run);
  } catch (const UserError& e) {
    return e;
  }
  ADD_FAILURE() << "plan accepted";
  return UserError("", "", "");
}

// Our copies of the engine's internal LLAMA_MAX_* must match the pinned source.
TEST(EngineLimits, MirrorTheEnginesOwnDefines) {
  std::ifstream in(std::string(MOESWEEP_SOURCE_DIR) + "/third_party/llama.cpp/src/llama-hparams.h");
  if (!in) GTEST_SKIP() << "engine source not in third_party/llama.cpp";
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  ASSERT_TRUE(std::regex_search(s, m, std::regex(R"(#define LLAMA_MAX_LAYERS\s+(\d+))")));
  EXPECT_EQ(std::stoi(m[1]), engine_limits::kMaxLayers);
  ASSERT_TRUE(std::regex_search(s, m, std::regex(R"(#define LLAMA_MAX_EXPERTS\s+(\d+))")));
  EXPECT_EQ(std::stoi(m[1]), engine_limits::kMaxExperts);
  EXPECT_EQ(engine_limits::kMaxThreads, GGML_MAX_N_THREADS);
}

TEST(SpecLimits, EachCappedValueNamesItsLimitAndWhy) {
  const struct {
    const char* key;
    int64_t max;
    const char* why;
  } cases[] = {{"threads", 512, "GGML_MAX_N_THREADS"},
               {"threads-batch", 512, "GGML_MAX_N_THREADS"},
               {"ctx-size", kMaxContext, "16M tokens"},
               {"batch-size", kMaxContext, "16M tokens"},
               {"ubatch-size", kMaxContext, "16M tokens"},
               {"n-gen", kMaxContext, "largest context"},
               {"n-prompt", kMaxContext, "largest context"},
               {"depths", kMaxContext, "largest context"},
               {"depth-step", kMaxContext, "largest context"},
               {"repetitions", kMaxRepetitions, "narrow nothing"},
               {"poll", 100, "percentage"},
               {"n-cpu-moe", 512, "LLAMA_MAX_LAYERS"},
               {"layers", 512, "LLAMA_MAX_LAYERS"},
               {"experts", 1024, "LLAMA_MAX_EXPERTS"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.key);
    const UserError e = error_of({{c.key, std::to_string(c.max + 1)}});
    EXPECT_NE(e.problem().find(fmt::format("(--{}): value {} is too large", c.key, c.max + 1)),
              std::string::npos)
        << e.problem();
    EXPECT_NE(e.expected().find(fmt::format("values <= {}", c.max)), std::string::npos)
        << e.expected();
    EXPECT_NE(e.expected().find(c.why), std::string::npos) << e.expected();
    EXPECT_EQ(e.exit_code(), exit_code::kBadInput);
  }
}

TEST(SpecLimits, ValuesBeyondIntAreRefusedNotTruncated) {
  // 2^32 + 1 used to become 1 thread, 2^31 - 1 TG tokens an overflowed sum.
  EXPECT_NE(error_of({{"threads", "4294967297"}}).problem().find("4294967297 is too large"),
            std::string::npos);
  EXPECT_NE(error_of({{"token-seed", "4294967297"}}).problem().find("too large"),
            std::string::npos);
  EXPECT_NE(error_of({{"n-gen", "2147483647"}}).problem().find("too large"), std::string::npos);
}

TEST(SpecLimits, TheLargestAcceptedValuesStillPlanOrFailTheFitCheck) {
  const SweepSpec s = spec_from_settings(
      {{"threads", "512"}, {"n-gen", std::to_string(kMaxContext)}, {"depths", "0"}}, "test");
  EXPECT_EQ(s.threads, std::vector<int>{512});
  // depth + PP + TG of the largest values cannot overflow: an honest refusal.
  const UserError e = plan_error({{"threads", "1"},
                                  {"n-gen", std::to_string(kMaxContext)},
                                  {"n-prompt", std::to_string(kMaxContext)},
                                  {"depths", std::to_string(kMaxContext)},
                                  {"ctx-size", "4096"}});
  EXPECT_NE(e.problem().find("do not fit in ctx 4096"), std::string::npos) << e.problem();
  EXPECT_NE(e.problem().find(std::to_string(3 * kMaxContext)), std::string::npos) << e.problem();
}

TEST(SpecLimits, BatchAboveAnExplicitContextIsRefused) {
  const UserError e = error_of({{"ctx-size", "1024,4096"}, {"batch-size", "2048"}});
  EXPECT_NE(e.problem().find("-b 2048 is larger than -c 1024"), std::string::npos) << e.problem();
  EXPECT_NE(e.fix().find("lower -b to 1024"), std::string::npos) << e.fix();
  // The default batch (2048, as llama-bench's) with a smaller -c is what llama-bench runs.
  EXPECT_NO_THROW(spec_from_settings({{"ctx-size", "1024"}}, "test"));
  EXPECT_NO_THROW(spec_from_settings({{"ctx-size", "4096"}, {"batch-size", "4096"}}, "test"));
}

TEST(SpecLimits, GivenButEmptyListsAreRefused) {
  for (const char* key : {"model", "quant", "cpu-mask", "cache-type-k", "flash-attn"}) {
    SCOPED_TRACE(key);
    const UserError e = error_of({{key, ""}});
    EXPECT_NE(e.problem().find(fmt::format("(--{}): no value given", key)), std::string::npos)
        << e.problem();
  }
  EXPECT_NE(error_of({{"model", " , "}}).problem().find("no value given"), std::string::npos);
}

TEST(SpecLimits, TwinShapeOverridesOfZeroAreRefusedNotIgnored) {
  for (const char* key : {"layers", "hidden", "experts", "experts-used", "vocab"}) {
    SCOPED_TRACE(key);
    EXPECT_NE(error_of({{key, "0"}}).problem().find("value 0 is too small"), std::string::npos);
  }
}

TEST(SpecLimits, CpuMasksAreSeparatedBySemicolonsOrGivenAsAJsonArray) {
  EXPECT_EQ(spec_from_settings({{"cpu-mask", "0-3,8;0x0f"}}, "test").cpu_masks,
            (std::vector<std::string>{"0-3,8", "0x0f"}));
  EXPECT_EQ(spec_from_settings({{"cpu-mask", nlohmann::json::array({"0-3,8", "0x0f"})}}, "test")
                .cpu_masks,
            (std::vector<std::string>{"0-3,8", "0x0f"}));
}

TEST(SpecLimits, TooManyPointsAreRefusedBeforeAnythingIsExpanded) {
  const UserError e =
      error_of({{"threads", "1-512"}, {"ubatch-size", "1-200"}, {"cache-type-k", "f16,q8_0"}});
  EXPECT_NE(e.problem().find("400 contexts x 512 thread settings make more than 100000 points"),
            std::string::npos)
      << e.problem();
  // Depths only show once the contexts exist: the plan counts them.
  const UserError walk = plan_error({{"threads", "1-512"},
                                     {"ctx-size", "65536"},
                                     {"depth-step", "128"},
                                     {"ubatch-size", "64"},
                                     {"n-gen", "2"},
                                     {"allow-oversubscribe", true}});
  EXPECT_NE(walk.problem().find("points (contexts x depths x thread settings)"), std::string::npos)
      << walk.problem();
}

TEST(SpecLimits, AWalkOfMillionsOfDepthsIsRefused) {
  const UserError e =
      plan_error({{"ctx-size", std::to_string(kMaxContext)}, {"depth-step", "1"}, {"n-gen", "2"}});
  EXPECT_NE(e.problem().find("has more than 4096 depths"), std::string::npos) << e.problem();
  EXPECT_NE(e.fix().find("--depth-step"), std::string::npos) << e.fix();
}

TEST(PlanCpuMask, AMaskNamingNoCpuIsRefused) {
  for (const char* mask : {"0x0", "0x", "zz", "5000"}) {
    SCOPED_TRACE(mask);
    const UserError e = plan_error({{"cpu-mask", mask}, {"depths", "0"}}, /*dry_run=*/true);
    EXPECT_TRUE(std::regex_search(e.problem(), std::regex("names no CPU|is not a CPU mask")))
        << e.problem();
  }
}

TEST(PlanCpuMask, ACpuThisProcessCannotUseIsRefusedAndOnlyWarnedInADryRun) {
  const Settings s = {{"cpu-mask", "1000"}, {"depths", "0"}};
  const UserError e = plan_error(s);
  EXPECT_NE(e.problem().find("names CPU(s) 1000 that this process cannot be pinned to"),
            std::string::npos)
      << e.problem();
  EXPECT_NE(e.expected().find("CPUs this process may use: "), std::string::npos) << e.expected();
  const Plan dry = make_plan(spec_from_settings(s, "test"), 64, /*dry_run=*/true);
  ASSERT_EQ(dry.warnings.size(), 1u);
  EXPECT_NE(dry.warnings[0].find("a real run refuses it"), std::string::npos) << dry.warnings[0];
}

TEST(PlanCpuMask, CpuZeroOfThisProcessIsAccepted) {
  // The lowest CPU this process may use, whatever the machine.
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &set)) ++cpu;
  const Plan plan = make_plan(
      spec_from_settings({{"cpu-mask", std::to_string(cpu)}, {"depths", "0"}}, "test"), 64);
  EXPECT_TRUE(plan.warnings.empty());
  EXPECT_EQ(plan.points.at(0).params.cpu_mask, std::to_string(cpu));
}

TEST(PlanWarnings, ManyOversubscribedThreadCountsWarnOncePerCount) {
  const Plan plan =
      make_plan(spec_from_settings(
                    {{"threads", "1-512"}, {"threads-batch", "1-10"}, {"depths", "0"}}, "test"),
                2, /*dry_run=*/true);
  EXPECT_EQ(plan.warnings.size(), 510u);  // 3..512, once each
  EXPECT_EQ(plan.points.size(), 512u * 10u);
}

}  // namespace
}  // namespace moesweep
