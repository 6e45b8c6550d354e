// The shipped sweep profiles expand into the plans they promise, tested on the
// Plan itself (the CLI's --dry-run text is tested for its wording in
// tests/cli/cli_test.cpp): the field reports' threads table and the 128K walk.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sweep/plan.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep {
namespace {

// The profile's plan as `sweep --profile NAME --dry-run` makes it on a
// machine of `cpus` logical CPUs (a dry run only warns about oversubscription).
Plan shipped_plan(const std::string& name, int cpus = 2) {
  std::string origin;
  std::map<std::string, nlohmann::json> settings = load_sweep_profile(name, &origin);
  settings.erase("description");
  return make_plan(spec_from_settings(settings, origin), cpus, /*dry_run=*/true);
}

TEST(ShippedProfiles, Threads12To16IsTheFieldReportsTableOnOneContext) {
  const Plan plan = shipped_plan("threads-12-16");
  EXPECT_EQ(plan.points.size(), 8u);  // 2 depths x 4 thread counts
  ASSERT_EQ(plan.models.size(), 1u);
  ASSERT_EQ(plan.models[0].contexts.size(), 1u);
  const ContextGroup& c = plan.models[0].contexts[0];
  EXPECT_EQ(c.params.n_ctx, 8192);
  EXPECT_EQ(c.params.n_batch, 2048);
  EXPECT_EQ(c.params.n_ubatch, 512);
  EXPECT_EQ(c.params.type_k, "q8_0");
  EXPECT_EQ(c.params.type_v, "q8_0");
  EXPECT_EQ(c.params.flash_attn, 1);
  EXPECT_TRUE(c.invalid_reason.empty()) << c.invalid_reason;
  EXPECT_EQ(c.depths, (std::vector<int>{0, 4096}));
  std::vector<int> threads;
  for (const ThreadSettings& t : c.threads) {
    EXPECT_EQ(t.n_threads_batch, t.n_threads);
    threads.push_back(t.n_threads);
  }
  EXPECT_EQ(threads, (std::vector<int>{16, 14, 13, 12}));
  EXPECT_FALSE(plan.warnings.empty()) << "16 threads on 2 CPUs: the dry run warns";
}

TEST(ShippedProfiles, LongContextWalksTo128KInOneContext) {
  const Plan plan = shipped_plan("long-context", 16);
  ASSERT_EQ(plan.models.size(), 1u);
  ASSERT_EQ(plan.models[0].contexts.size(), 1u);
  const ContextGroup& c = plan.models[0].contexts[0];
  std::vector<int> depths;
  for (int d = 0; d <= 131072; d += 16384) depths.push_back(d);
  EXPECT_EQ(c.depths, depths);
  EXPECT_GE(c.params.n_ctx, 131072 + c.n_prompt);
  ASSERT_EQ(c.threads.size(), 1u);
  EXPECT_EQ(c.threads[0].n_threads, 13);
  EXPECT_EQ(plan.points.size(), depths.size());
}

}  // namespace
}  // namespace moesweep
